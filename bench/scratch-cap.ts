import { zipSync, strToU8 } from "fflate";
import { benchAbuse } from "./abuse";
const MiB = 1024 * 1024;
const part = (from: number, title: number) => {
  const lines = ["title,url,time_added,tags,status"];
  let length = 40;
  for (let n = from; ; n++) {
    const line = `"Article ${n}: ${"a long title ".repeat(title)}",https://site${n % 500}.example/articles/${n},${1600000000 + n},tag ${n % 200},unread`;
    if (length + line.length + 1 > 32 * MiB) break;
    lines.push(line); length += line.length + 1;
  }
  return strToU8(lines.join("\n"));
};
for (const title of [50, 200]) {
  const figures = await benchAbuse(process.argv[2]!, [{
    name: `zip at the caps, titles ${title * 13}`, detail: "two 32 MiB CSV parts",
    prepare: () => zipSync({ "part_000000.csv": part(0, title), "part_000001.csv": part(1_000_000, title) }),
    send: async (target, zip) => {
      const form = new FormData();
      form.append("file", new File([zip], "pocket.zip"));
      const response = await fetch(`${target.base}/import`, { method: "POST", body: form, redirect: "manual", headers: { cookie: target.cookie, origin: target.base, accept: "text/html" } });
      const text = await response.text();
      if (response.status !== 303) console.log(text.match(/class="error[^>]*>([^<]*)/)?.[1] ?? text.slice(0, 300));
      return response.status;
    },
    refusedWith: [303],
  }]);
  console.log(JSON.stringify(figures));
}

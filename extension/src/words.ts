/** How the extension writes counts: digits grouped (`20,094`), the noun in the right number (`1 link`, `2 links`), as the server's pages do. */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

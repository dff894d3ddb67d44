/** One bar of the chart: a measured ratio against its target (and, where known, the floor under it). */
export interface ChartRow {
  label: string;
  value: number;
  target: number;
  /** `atLeast`: the value must reach the target; `atMost`: it must stay under it. */
  direction: "atLeast" | "atMost";
  /** What the stack alone (Elysia + drizzle + bun:sqlite) measures on the same scale. */
  floor?: number;
  /** The text printed after the bar. */
  note: string;
}

const WIDTH = 760;
const LABEL_WIDTH = 250;
const BAR_WIDTH = 330;
const ROW_HEIGHT = 46;
const TOP = 58;

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * renderChart draws the benchmark figures as a small SVG, one row each: the bar is the
 * measured ratio (green when the target is met, red when not), the dark tick the target,
 * the grey tick the floor. Every row has its own scale, from 0 to a bit past the largest
 * of the three numbers.
 */
export function renderChart(rows: ChartRow[], subtitle: string): string {
  const height = TOP + rows.length * ROW_HEIGHT + 34;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="16" y="26" font-size="17" font-weight="600" fill="#1d2330">linkshelf: performance targets, measured</text>`,
    `<text x="16" y="45" font-size="12" fill="#5b6475">${escape(subtitle)}</text>`,
  ];
  rows.forEach((row, index) => {
    const y = TOP + index * ROW_HEIGHT;
    const scale = BAR_WIDTH / (Math.max(row.value, row.target, row.floor ?? 0) * 1.15);
    const met = row.direction === "atLeast" ? row.value >= row.target : row.value <= row.target;
    const x0 = LABEL_WIDTH;
    parts.push(
      `<text x="16" y="${y + 20}" font-size="13" fill="#1d2330">${escape(row.label)}</text>`,
      `<rect x="${x0}" y="${y + 6}" width="${BAR_WIDTH}" height="20" fill="#eef0f4" rx="3"/>`,
      `<rect x="${x0}" y="${y + 6}" width="${(row.value * scale).toFixed(1)}" height="20" fill="${met ? "#2e9e5b" : "#d0453a"}" rx="3"/>`,
      `<line x1="${(x0 + row.target * scale).toFixed(1)}" x2="${(x0 + row.target * scale).toFixed(1)}" y1="${y + 1}" y2="${y + 31}" stroke="#1d2330" stroke-width="2.5"/>`,
      `<text x="${(x0 + row.target * scale).toFixed(1)}" y="${y + 42}" font-size="10" text-anchor="middle" fill="#1d2330">${row.direction === "atLeast" ? "≥" : "≤"} ${row.target}</text>`,
    );
    if (row.floor !== undefined) {
      parts.push(
        `<line x1="${(x0 + row.floor * scale).toFixed(1)}" x2="${(x0 + row.floor * scale).toFixed(1)}" y1="${y + 3}" y2="${y + 29}" stroke="#8a93a3" stroke-width="2" stroke-dasharray="3 2"/>`,
        `<text x="${(x0 + row.floor * scale).toFixed(1)}" y="${y + 3}" font-size="9" text-anchor="middle" fill="#5b6475">floor ${row.floor.toFixed(2)}</text>`,
      );
    }
    parts.push(`<text x="${x0 + BAR_WIDTH + 10}" y="${y + 20}" font-size="12" fill="#1d2330">${escape(row.note)}</text>`);
  });
  const legendY = TOP + rows.length * ROW_HEIGHT + 16;
  parts.push(
    `<text x="16" y="${legendY}" font-size="11" fill="#5b6475">bar: measured ratio (green: target met) · black tick: target · dashed grey: floor, Elysia + drizzle + bun:sqlite alone</text>`,
    `</svg>`,
  );
  return parts.join("\n") + "\n";
}

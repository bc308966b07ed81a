/**
 * A restore's diff drawn as the TUI draws a proposed change: each unified-diff line in the permission
 * prompt's colours (added green, removed red, hunks cyan), whole — a restore is reviewed before it is applied.
 */
export async function render_diff(diff: string, columns: number): Promise<string> {
  await import("../tui/react-production.js");
  // React is CommonJS: bundled, its dynamic import is its `default` alone (scripts/bundle-cli.mjs).
  const [{ Box, Text, renderToString }, { default: React }, { diff_line_style }, { clean_text }] = await Promise.all([
    import("ink"),
    import("react"),
    import("../tui/views/diff.js"),
    import("../tui/sanitize.js"),
  ]);
  const h = React.createElement;
  const lines = clean_text(diff).replace(/\n$/, "").split("\n");
  const tree = h(
    Box,
    { flexDirection: "column" },
    ...lines.map((line, index) => h(Text, { key: String(index), wrap: "truncate-end", ...diff_line_style(line) }, line === "" ? " " : line)),
  );
  return renderToString(tree, { columns });
}

/*
 * The HUD's layout, apart from ink: the App's HUD (views/hud.ts) and `air run`'s pre-frame
 * (src/cli/pre-frame.ts), which paints before ink loads, lay out their fields the same way.
 */

/** The fields in rows of at most `columns` where they fit, a field never split; "─ " leads the first row. */
export function hud_rows(fields: readonly string[], columns: number): string {
  const rows: string[] = [];
  let row = "";
  const lead = () => (rows.length === 0 ? "─ " : "  ");
  for (const field of fields) {
    if (row !== "" && lead().length + row.length + 3 + field.length > columns) {
      rows.push(lead() + row);
      row = field;
    } else row = row === "" ? field : `${row} · ${field}`;
  }
  return [...rows, lead() + row].join("\n");
}

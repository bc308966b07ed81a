import * as v from "valibot";
import { ephemeral } from "./define.js";
import { Duration, NonEmpty } from "./common.js";

export const hud_events = {
  "hud.frame.rendered": ephemeral(
    v.strictObject({ frame: v.pipe(v.number(), v.integer(), v.minValue(0)), view: NonEmpty, duration_ms: Duration }),
    "The TUI drew a frame (render timing).",
    { mode: "latest", key: "view" },
  ),
} as const;

import type { Plugin } from "esbuild";

export function patch_ink_file(file: string, source: string): string;
export const ink_frame_caches: Plugin;

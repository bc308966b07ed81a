import type { BuildOptions } from "esbuild";

export function bundle_options(entry_points: string[], outdir: string): BuildOptions & { metafile: true };

import type { BuildOptions } from "esbuild";

export function bundle_options(entry_points: string[], outdir: string): BuildOptions & { metafile: true };
export function bundle_source(contents: string, resolve_dir: string, outdir: string): Promise<string>;

import type { Plugin } from "esbuild";

export function patch_string_width(file: string, source: string, version: string): string;
export const string_width_single_code_units: Plugin;

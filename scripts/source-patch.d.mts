export function replace_each(file: string, source: string, replacements: readonly (readonly [string, string])[]): string;

/**
 * Exact source replacements for the packages the CLI's bundle patches (scripts/ink-patches.mjs,
 * scripts/string-width-patch.mjs): each replaced text must occur exactly once, or the build fails, so a
 * package that changed is read again rather than patched blindly.
 */

/** `source` with each `[from, to]` applied in order; `from` must occur exactly once at its turn. */
export function replace_each(file, source, replacements) {
  return replacements.reduce((patched, [from, to]) => {
    const at = patched.indexOf(from);
    if (at === -1 || patched.indexOf(from, at + from.length) !== -1) {
      throw new Error(`${file}: the package no longer reads as the bundle's patch expects (${JSON.stringify(from)})`);
    }
    return patched.slice(0, at) + to + patched.slice(at + from.length);
  }, source);
}

import type { WaveGraph } from "./graph.js";

/**
 * Answers whether a new row `from → to` would close a cycle, over every recorded row of any kind and
 * every row added during this plan. New rows always point at a running or just-picked task, so only those
 * few tasks' reach is ever computed (one walk each), and kept current as rows are added.
 */
export class CycleGuard {
  readonly #tables: readonly ReadonlyMap<string, readonly string[]>[];
  readonly #added = new Map<string, string[]>();
  readonly #reach = new Map<string, Set<string>>();

  constructor(graph: WaveGraph) {
    this.#tables = [graph.hard, graph.soft, graph.after, this.#added];
  }

  would_cycle(from: string, to: string): boolean {
    return from === to || this.#reach_of(to).has(from);
  }

  add(from: string, to: string): void {
    const targets = this.#added.get(from);
    if (targets === undefined) this.#added.set(from, [to]);
    else targets.push(to);
    const gained = this.#reach_of(to);
    for (const [node, reach] of this.#reach) {
      if (node !== from && !reach.has(from)) continue;
      reach.add(to);
      for (const id of gained) reach.add(id);
    }
  }

  #reach_of(start: string): Set<string> {
    const known = this.#reach.get(start);
    if (known !== undefined) return known;
    const reach = new Set<string>();
    const stack = [start];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      for (const table of this.#tables) {
        for (const next of table.get(node) ?? []) {
          if (reach.has(next)) continue;
          reach.add(next);
          stack.push(next);
        }
      }
    }
    this.#reach.set(start, reach);
    return reach;
  }
}

/**
 * One cycle of a directed graph, as the nodes along it in edge order (`[a, b]` for a → b → a), or
 * undefined when there is none. Iterative depth-first search, so a long chain cannot overflow the stack.
 */
export function find_cycle<T>(nodes: readonly T[], edges_of: (node: T) => readonly T[]): T[] | undefined {
  const done = new Set<T>();
  for (const start of nodes) {
    if (done.has(start)) continue;
    // The path from `start` to the node being explored, each with how many of its edges were followed.
    const path: { node: T; next: number }[] = [{ node: start, next: 0 }];
    const on_path = new Set<T>([start]);
    while (path.length > 0) {
      const top = path[path.length - 1];
      if (top === undefined) break;
      const edges = edges_of(top.node);
      const target = edges[top.next];
      top.next += 1;
      if (target === undefined) {
        path.pop();
        on_path.delete(top.node);
        done.add(top.node);
      } else if (on_path.has(target)) {
        return path.slice(path.findIndex((step) => step.node === target)).map((step) => step.node);
      } else if (!done.has(target)) {
        path.push({ node: target, next: 0 });
        on_path.add(target);
      }
    }
  }
  return undefined;
}

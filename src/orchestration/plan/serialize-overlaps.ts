import type { TaskSpec } from "../../contracts/task.js";
import { areas_overlap } from "../areas/overlap.js";

/** Every task `id` waits for through hard dependencies, directly or not. */
function hard_ancestors(specs: readonly TaskSpec[]): Map<string, Set<string>> {
  const by_id = new Map<string, TaskSpec>(specs.map((spec) => [spec.id, spec]));
  const memo = new Map<string, Set<string>>();
  const visit = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const found = new Set<string>();
    memo.set(id, found);
    for (const parent of by_id.get(id)?.dependencies.hard ?? []) {
      found.add(parent);
      for (const above of visit(parent)) found.add(above);
    }
    return found;
  };
  for (const spec of specs) visit(spec.id);
  return memo;
}

/**
 * A validated plan (acyclic) with a `serialization` dependency wherever two tasks' write areas may overlap
 * and no hard dependency already orders them: the later task of the plan goes after the earlier one. Known
 * before anything runs, the order is part of the plan the user approves and a restart reads it from rows.
 * Edges only point back in plan order, between tasks neither of which waits for the other, so no cycle.
 */
export function serialize_overlaps(specs: readonly TaskSpec[]): TaskSpec[] {
  const ancestors = hard_ancestors(specs);
  const ordered = (a: string, b: string) => ancestors.get(a)?.has(b) === true || ancestors.get(b)?.has(a) === true;
  return specs.map((spec, index) => {
    const earlier = specs
      .slice(0, index)
      .filter((other) => !ordered(spec.id, other.id) && areas_overlap(spec.scope.write_area, other.scope.write_area).overlap)
      .map((other) => other.id);
    if (earlier.length === 0) return spec;
    const serialization = [...new Set([...spec.dependencies.serialization, ...earlier])];
    return { ...spec, dependencies: { ...spec.dependencies, serialization } };
  });
}

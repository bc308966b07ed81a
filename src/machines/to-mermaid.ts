import type { AnyStateMachine } from "xstate";
import { toDirectedGraph, type DirectedGraphNode } from "xstate/graph";

type AnyStateNode = DirectedGraphNode["stateNode"];

/** A transition of the machine itself applies in any of its states: its edges start at this pseudo-state. */
const ANY_STATE = "any_state";

/** Mermaid ids cannot contain dots, and nested keys may repeat, so ids are the joined path. */
function mermaid_id(node: AnyStateNode): string {
  return node.path.length === 0 ? ANY_STATE : node.path.join("__");
}

function guard_name(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) return String(guard.type);
  return "guard";
}

function render_node(graph: DirectedGraphNode, indent: string, lines: string[]): void {
  const node = graph.stateNode;
  const children = graph.children;
  if (children.length > 0) {
    const scoped = node.parent !== undefined;
    const inner = scoped ? `${indent}  ` : indent;
    if (scoped) lines.push(`${indent}state ${mermaid_id(node)} {`);
    const initial = node.initial?.target[0];
    if (node.type !== "parallel" && initial) lines.push(`${inner}[*] --> ${mermaid_id(initial)}`);
    children.forEach((child, index) => {
      // Parallel regions are separated by `--` in Mermaid.
      if (node.type === "parallel" && index > 0) lines.push(`${inner}--`);
      render_node(child, inner, lines);
    });
    if (scoped) lines.push(`${indent}}`);
  } else if (node.key !== mermaid_id(node)) {
    lines.push(`${indent}state "${node.key}" as ${mermaid_id(node)}`);
  }
  if (node.type === "final") lines.push(`${indent}${mermaid_id(node)} --> [*]`);
  if (node.parent === undefined && graph.edges.length > 0) lines.push(`${indent}state "any state" as ${ANY_STATE}`);
  for (const edge of graph.edges) {
    const guard = guard_name(edge.transition.guard);
    const label = guard ? `${edge.label.text} [${guard}]` : edge.label.text;
    lines.push(`${indent}${mermaid_id(edge.source)} --> ${mermaid_id(edge.target)} : ${label}`);
  }
  // Eventless (`always`) transitions are not edges of the directed graph; a routing state would look
  // like a dead end without them.
  for (const transition of node.always ?? []) {
    const guard = guard_name(transition.guard);
    for (const target of transition.target ?? []) {
      lines.push(`${indent}${mermaid_id(node)} --> ${mermaid_id(target)} : always${guard ? ` [${guard}]` : ""}`);
    }
  }
}

/**
 * Renders a machine as a Mermaid `stateDiagram-v2`. The output depends only on the machine
 * definition (states and transitions in declaration order), so it can be committed and diffed.
 */
export function to_mermaid(machine: AnyStateMachine): string {
  const lines = ["stateDiagram-v2"];
  render_node(toDirectedGraph(machine), "  ", lines);
  return `${lines.join("\n")}\n`;
}

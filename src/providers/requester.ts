/**
 * The header naming the agent behind a model request ("main", "executor", …). The scripted model server
 * answers each requester from its own list of turns; a real API ignores it.
 */
export const REQUESTER_HEADER = "x-air-requester";

export const DEFAULT_REQUESTER = "main";

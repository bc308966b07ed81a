export { analyze_command } from "./analyze.js";
export type { AnalyzedCommand, AnalyzerAction, AnalyzerContext, CommandAnalysis, CommandCategory, CommandFinding, FindingCategory } from "./types.js";
export { COMMAND_CATEGORIES } from "./types.js";

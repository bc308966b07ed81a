/**
 * Environment variables that hold credentials. No child process air starts — a worker, a shell command —
 * ever receives them (DESIGN.md §5, §6): keys stay in the parent that calls the provider.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  // provider credentials, whatever their suffix
  /^(ANTHROPIC|OPENAI|OPENROUTER|AZURE_OPENAI|GEMINI|GOOGLE_GENERATIVE_AI|MISTRAL|GROQ|DEEPSEEK|XAI|COHERE|HF|HUGGING_FACE)_/i,
  // anything named like a credential
  /(^|_)(API_?KEY|KEY_ID|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i,
  /(^|_)SECRET(_|$)/i,
  /PASSWORD/i,
  /^AWS_(SECRET_ACCESS_KEY|SESSION_TOKEN|ACCESS_KEY_ID)$/i,
];

export function is_credential_variable(name: string): boolean {
  return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(name));
}

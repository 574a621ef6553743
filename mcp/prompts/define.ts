/** One argument a prompt takes; MCP passes every argument as a string. */
export interface PromptArgument {
  name: string;
  description: string;
  required?: boolean;
}

/** A prompt that starts a common piece of work: which tools to call, in which order, and what to write. */
export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** The user message the prompt expands to, from the arguments given. */
  text(args: Record<string, string | undefined>): string;
}

export function definePrompt(prompt: PromptDefinition): PromptDefinition {
  return prompt;
}

/** Numbered steps, one per line. */
export function steps(lines: string[]): string {
  return lines.map((line, i) => `${i + 1}. ${line}`).join('\n');
}

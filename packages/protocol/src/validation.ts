import type { z } from 'zod';

/** `selector.type: Invalid input; url: Invalid URL`: every issue, with the field path it concerns. */
export function formatZodError(error: z.ZodError, root?: string): { message: string; issues: ZodIssueSummary[] } {
  const issues = error.issues.slice(0, 10).map((issue) => {
    const path = [root, ...issue.path.map(String)].filter(Boolean).join('.');
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
    const field = keys ? [path, keys[0]].filter(Boolean).join('.') : path;
    return { path: field || '(params)', message: issue.message };
  });
  return { message: issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues };
}

export interface ZodIssueSummary {
  path: string;
  message: string;
}

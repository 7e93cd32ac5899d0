import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';

/**
 * Compiles a URL pattern: `/…/flags` is a regular expression, a pattern with `*` a glob matched
 * against the whole URL (`*` stays within a path segment, `**` crosses them), anything else a
 * substring. A pattern that does not compile is an InvalidParams error naming `field`.
 */
export function compileUrlPattern(pattern: string, field: string): (url: string) => boolean {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    try {
      const compiled = new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, ''));
      return (url) => compiled.test(url);
    } catch (error) {
      throw new BAPError(ErrorCodes.InvalidParams, `${field}: ${(error as Error).message}`, {
        details: { field, pattern },
        recoveryHint: 'Fix the regular expression, or use a glob such as "**/api/*" or a plain substring.',
      });
    }
  }
  if (pattern.includes('*')) {
    const source = pattern
      .split(/(\*\*|\*)/)
      .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    const compiled = new RegExp(`^${source}$`);
    return (url) => compiled.test(url);
  }
  return (url) => url.includes(pattern);
}

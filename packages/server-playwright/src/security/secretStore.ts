import { BAPError, ErrorCodes, SecretsFileSchema, formatZodError, type SecretsFile } from '@browseragentprotocol/protocol';
import { urlMatchesHosts } from './domainPolicy.js';
import type { Redactor } from './redactor.js';

const PLACEHOLDER = /\{\{secret:([A-Za-z0-9_.-]{1,64})\}\}/g;

interface Secret {
  value: string;
  domains: string[] | undefined;
}

/**
 * Named secrets an agent types without seeing: it writes `{{secret:NAME}}` in an action/fill
 * value or action/type text and the server puts the value in. Each value is registered with the
 * redactor, so wherever it would come back out (a field's value, an echo on the page, an error)
 * the agent sees `{{secret:NAME}}` again. A secret given with `domains` is only typed on pages
 * of those hosts.
 */
export class SecretStore {
  private readonly secrets = new Map<string, Secret>();

  constructor(file: SecretsFile, redactor: Redactor) {
    const parsed = SecretsFileSchema.safeParse(file);
    if (!parsed.success) throw new Error(`Invalid secrets: ${formatZodError(parsed.error, 'secrets').message}`);
    for (const [name, entry] of Object.entries(parsed.data)) {
      const secret = typeof entry === 'string' ? { value: entry, domains: undefined } : { value: entry.value, domains: entry.domains };
      this.secrets.set(name, secret);
      redactor.add(secret.value, `{{secret:${name}}}`);
    }
  }

  static hasPlaceholder(text: string): boolean {
    return text.includes('{{secret:');
  }

  /** `text` with its placeholders replaced; `field` names the param in errors, `pageUrl` is where it will be typed. */
  resolve(text: string, field: string, pageUrl: string): string {
    return text.replace(PLACEHOLDER, (_, name: string) => {
      const secret = this.secrets.get(name);
      if (!secret) {
        throw new BAPError(ErrorCodes.InvalidParams, `${field}: unknown secret "${name}".`, {
          details: { field, secret: name, known: [...this.secrets.keys()] },
          recoveryHint: this.secrets.size ? `Known secrets: ${[...this.secrets.keys()].join(', ')}.` : 'The server has no secrets configured (--secrets-file).',
        });
      }
      if (secret.domains && !urlMatchesHosts(secret.domains, pageUrl)) {
        throw new BAPError(ErrorCodes.DomainNotAllowed, `Secret "${name}" may not be typed on this page: it is bound to ${secret.domains.join(', ')}.`, {
          retryable: false,
          details: { field, secret: name, domains: secret.domains },
          recoveryHint: 'Navigate to a page of the domains the secret is bound to first.',
        });
      }
      return secret.value;
    });
  }
}

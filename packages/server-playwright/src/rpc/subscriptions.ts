import type { EventFilters, EventType, EventNotificationName } from '@browseragentprotocol/protocol';
import { compileUrlPattern } from '../engine/urlPattern.js';

const TYPE_OF: Record<EventNotificationName, EventType> = {
  'events/page': 'page',
  'events/console': 'console',
  'events/network': 'network',
  'events/dialog': 'dialog',
  'events/download': 'download',
};

type Params = { pageId?: string; type?: string; level?: string; resourceType?: string; url?: string };

/** Which notifications a session wants: event types, each optionally narrowed by a filter. */
export class Subscriptions {
  private events = new Set<EventType>();
  private filters: EventFilters = {};
  private urlMatches: ((url: string) => boolean) | null = null;

  /** Replaces the subscription; throws InvalidParams (before changing anything) on a bad pattern. */
  set(events: EventType[], filters: EventFilters = {}): void {
    const pattern = filters.network?.urlPattern;
    const urlMatches = pattern ? compileUrlPattern(pattern, 'params.filters.network.urlPattern') : null;
    this.events = new Set(events);
    this.filters = filters;
    this.urlMatches = urlMatches;
  }

  accepts(method: EventNotificationName, params: Params): boolean {
    const type = TYPE_OF[method];
    if (!this.events.has(type)) return false;
    const filter = this.filters[type];
    if (!filter) return true;
    if (filter.pageIds && !(params.pageId && filter.pageIds.includes(params.pageId))) return false;
    if ('types' in filter && filter.types && !(filter.types as string[]).includes(params.type ?? '')) return false;
    if ('levels' in filter && filter.levels && !(filter.levels as string[]).includes(params.level ?? '')) return false;
    if (type === 'network') {
      const network = this.filters.network!;
      if (network.resourceTypes && !network.resourceTypes.includes(params.resourceType ?? '')) return false;
      if (this.urlMatches && !this.urlMatches(params.url ?? '')) return false;
    }
    return true;
  }
}

import { parseSelector, type MethodParams, type MethodResult, type Selector } from '@browseragentprotocol/protocol';
import { BAPClientCore } from './clientCore.js';

/** A Selector object, or its string form: `role:button:Submit`, `text:Sign in`, `@e5`, `coords:10,20`, CSS. */
export type SelectorInput = Selector | string;

type ElementAction = 'action/click' | 'action/fill' | 'action/type';
/** A method's `options` flattened next to `pageId`: `click('text:Go', { pageId, force: true })`. */
export type ActionOptions<M extends ElementAction> = NonNullable<MethodParams<M>['options']> & { pageId?: string | null };

type WithSelectorInput<P> = Omit<P, 'selector'> & { selector?: SelectorInput };

export function toSelector(input: SelectorInput): Selector {
  return typeof input === 'string' ? parseSelector(input) : input;
}

function elementParams<M extends ElementAction>(selector: SelectorInput, options: ActionOptions<M> | undefined) {
  const { pageId, ...rest } = options ?? {};
  return { pageId, selector: toSelector(selector), options: rest };
}

function withSelector<P extends { selector?: Selector }>(params: WithSelectorInput<P> | undefined): P {
  const { selector, ...rest } = params ?? {};
  return { ...rest, ...(selector === undefined ? {} : { selector: toSelector(selector) }) } as P;
}

/**
 * A BAP client: `connect()`, then the whole method table under `rpc` (`rpc.page.navigate({url})`),
 * `call()`/`batch()`, and these shortcuts for the everyday methods. Selector arguments accept the
 * string forms of `parseSelector`.
 */
export class BAPClient extends BAPClientCore {
  navigate(url: string, options?: Omit<MethodParams<'page/navigate'>, 'url'>): Promise<MethodResult<'page/navigate'>> {
    return this.call('page/navigate', { ...options, url });
  }

  click(selector: SelectorInput, options?: ActionOptions<'action/click'>): Promise<MethodResult<'action/click'>> {
    return this.call('action/click', elementParams(selector, options));
  }

  fill(selector: SelectorInput, value: string, options?: ActionOptions<'action/fill'>): Promise<MethodResult<'action/fill'>> {
    return this.call('action/fill', { ...elementParams(selector, options), value });
  }

  /** Key by key, firing key events; `fill` sets the value at once. */
  type(selector: SelectorInput, text: string, options?: ActionOptions<'action/type'>): Promise<MethodResult<'action/type'>> {
    return this.call('action/type', { ...elementParams(selector, options), text });
  }

  /** `Enter`, `Control+a`…; on `selector` if given, else on whatever has focus. */
  press(key: string, selector?: SelectorInput): Promise<MethodResult<'action/press'>> {
    return this.call('action/press', selector === undefined ? { key } : { key, selector: toSelector(selector) });
  }

  ariaSnapshot(
    params?: WithSelectorInput<MethodParams<'observe/ariaSnapshot'>>,
  ): Promise<MethodResult<'observe/ariaSnapshot'>> {
    return this.call('observe/ariaSnapshot', withSelector(params));
  }

  screenshot(params?: WithSelectorInput<MethodParams<'observe/screenshot'>>): Promise<MethodResult<'observe/screenshot'>> {
    return this.call('observe/screenshot', withSelector(params));
  }

  content(format?: MethodParams<'observe/content'>['format']): Promise<MethodResult<'observe/content'>> {
    return this.call('observe/content', format === undefined ? {} : { format });
  }

  /** Runs up to 50 steps in one round trip (docs/agent-act.md). */
  act(steps: MethodParams<'agent/act'>['steps'], options?: Omit<MethodParams<'agent/act'>, 'steps'>): Promise<MethodResult<'agent/act'>> {
    return this.call('agent/act', { ...options, steps });
  }

  /** Metadata and interactive elements with refs, budgeted (docs/agent-observe.md). */
  observe(params?: MethodParams<'agent/observe'>): Promise<MethodResult<'agent/observe'>> {
    return this.call('agent/observe', params);
  }

  /** Data shaped by a JSON Schema, each value with its ref (docs/extract.md). */
  extract(
    schema: MethodParams<'agent/extract'>['schema'],
    options?: WithSelectorInput<Omit<MethodParams<'agent/extract'>, 'schema'>>,
  ): Promise<MethodResult<'agent/extract'>> {
    return this.call('agent/extract', { ...withSelector<Omit<MethodParams<'agent/extract'>, 'schema'>>(options), schema });
  }

  createPage(params?: MethodParams<'page/create'>): Promise<MethodResult<'page/create'>> {
    return this.call('page/create', params);
  }

  listPages(): Promise<MethodResult<'page/list'>> {
    return this.call('page/list');
  }
}

import { methodNames, type MethodName, type MethodParams, type MethodResult } from '@browseragentprotocol/protocol';

/** Methods whose params are all optional can be called without an argument. */
type MethodFunction<M extends MethodName> = Record<never, never> extends MethodParams<M>
  ? (params?: MethodParams<M>) => Promise<MethodResult<M>>
  : (params: MethodParams<M>) => Promise<MethodResult<M>>;

type Namespace<M> = M extends `${infer N}/${string}` ? N : never;

/**
 * `page/navigate` → `rpc.page.navigate(params)`. Methods without a `/` (`initialize`, `shutdown`)
 * belong to the client's lifecycle (`connect()`, `close()`) and are left out.
 */
export type RpcNamespaces = {
  readonly [N in Namespace<MethodName>]: {
    readonly [M in MethodName as M extends `${N}/${infer Leaf}` ? Leaf : never]: MethodFunction<M>;
  };
};

export type Caller = <M extends MethodName>(method: M, params?: MethodParams<M>) => Promise<MethodResult<M>>;

/** Built from the method table at run time, so a method added to the protocol appears here at once. */
export function buildRpcNamespaces(call: Caller): RpcNamespaces {
  const namespaces: Record<string, Record<string, (params?: unknown) => Promise<unknown>>> = {};
  for (const method of methodNames) {
    const slash = method.indexOf('/');
    if (slash < 0) continue;
    const namespace = (namespaces[method.slice(0, slash)] ??= {});
    namespace[method.slice(slash + 1)] = (params) => call(method, params as MethodParams<typeof method>);
  }
  return namespaces as unknown as RpcNamespaces;
}

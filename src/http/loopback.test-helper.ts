/**
 * The checked call every loopback test makes: fill a path template, send over the real socket,
 * expect a status, and hold a 200 body to its operation's OpenAPI schema and any other to the
 * status schema.
 */
import { expect } from "vitest";
import type { Body } from "../../test/helpers.js";
import { errorProblems, responseProblems } from "./openapi-validate.test-helper.js";

/** One call: path parameters, a query string, a JSON body, the bearer token, the status expected (200). */
export interface CallOptions {
  readonly params?: Record<string, string>;
  readonly query?: string;
  readonly body?: unknown;
  readonly token?: string;
  readonly expect?: number;
}

/**
 * A `call(method, template, options)` against the server `url()` names, as `token()` (default
 * `tok-super`); `onCall` hears each `METHOD template` called.
 */
export function checkedCaller(
  url: () => string,
  defaults: { readonly token?: () => string; readonly onCall?: (route: string) => void } = {},
): (method: string, template: string, opts?: CallOptions) => Promise<Body> {
  return async (method, template, opts = {}) => {
    const path = template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(opts.params?.[n] ?? ""));
    const token = opts.token ?? defaults.token?.() ?? "tok-super";
    const res = await fetch(`${url()}${path}${opts.query ? `?${opts.query}` : ""}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(opts.body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    const body: Body = await res.json();
    expect(res.status, `${method} ${path}: ${JSON.stringify(body).slice(0, 400)}`).toBe(opts.expect ?? 200);
    if (res.status === 200) expect(responseProblems(method, template, body), `${method} ${template}`).toEqual([]);
    else expect(errorProblems(body), `${method} ${template} error`).toEqual([]);
    defaults.onCall?.(`${method} ${template}`);
    return body;
  };
}

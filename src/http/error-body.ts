/**
 * Error responses in the shape grpc-gateway writes, `{"code": 5, "message": "...", "details": []}`,
 * because the service's HTTP API is a gateway over gRPC (its errors are gRPC canonical codes) and
 * the SDK clients written against it parse exactly that body. The spec does not show the error body;
 * this is the documented choice (src/http/README.md, "Errors").
 */
import type { SimError, SimErrorCode } from "../reducers/errors.js";
import { httpStatusOf } from "../reducers/errors.js";

/**
 * The gRPC canonical codes the HTTP face answers with, by name, with their numbers (google.rpc.Code).
 *
 * @example
 * ```ts
 * GRPC_CODES.NOT_FOUND; // 5
 * ```
 */
export const GRPC_CODES = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const satisfies Record<SimErrorCode, number> & Record<string, number>;

/**
 * A gRPC canonical code name the HTTP face can answer with.
 *
 * @example
 * ```ts
 * const c: GrpcCodeName = "UNIMPLEMENTED";
 * ```
 */
export type GrpcCodeName = keyof typeof GRPC_CODES;

/**
 * The HTTP status grpc-gateway answers for each gRPC code (its `HTTPStatusFromCode`): the status
 * every route of the HTTP face gives a failure unless the HTTP layer itself refuses (405, 413, 415).
 *
 * @example
 * ```ts
 * GRPC_HTTP_STATUS.ALREADY_EXISTS; // 409
 * ```
 */
export const GRPC_HTTP_STATUS: Readonly<Record<GrpcCodeName, number>> = {
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

/**
 * A failure with the status of its gRPC code (grpc-gateway's mapping) and the code's name as its
 * reason: what a route returns for an expected refusal of its own.
 *
 * @example
 * ```ts
 * refusal("NOT_FOUND", 'user "u-x" not found'); // { status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", ... }
 * refusal("INVALID_ARGUMENT", "pageSize must be a number", { field: "pageSize" });
 * ```
 */
export function refusal(code: GrpcCodeName, message: string, extra: Partial<Omit<HttpFailure, "code" | "message">> = {}): HttpFailure {
  return { status: GRPC_HTTP_STATUS[code], code, reason: code, message, ...extra };
}

/**
 * What is wrong with a required string field of a request body: `"<field> is required"` when it is
 * missing, null or `""` (with `what` it is, when given), `"<field> must be a string, not 5"` when
 * it holds another type, which is no missing value. `undefined` when it is a non-empty string.
 *
 * @example
 * ```ts
 * requiredStringProblem("policyStepId", 5); // "policyStepId must be a string, not 5"
 * requiredStringProblem("userId", undefined, "the user to add"); // "userId is required: the user to add"
 * ```
 */
export function requiredStringProblem(field: string, value: unknown, what?: string): string | undefined {
  if (typeof value === "string" && value !== "") return undefined;
  if (value === undefined || value === null || typeof value === "string") return what === undefined ? `${field} is required` : `${field} is required: ${what}`;
  let shown: string;
  try {
    shown = Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : JSON.stringify(value) ?? typeof value;
  } catch {
    shown = typeof value;
  }
  return `${field} must be a string, not ${shown}`;
}

/**
 * `google.rpc.ErrorInfo`: why, as a stable machine-readable `reason` (for a reducer error, its
 * SimError code name, so clients have the string form without a second top-level field).
 *
 * @example
 * ```ts
 * const d: ErrorInfoDetail = { "@type": ERROR_INFO_TYPE, reason: "NOT_FOUND", domain: "policy-sim", metadata: {} };
 * ```
 */
export interface ErrorInfoDetail {
  readonly "@type": typeof ERROR_INFO_TYPE;
  readonly reason: string;
  readonly domain: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * `google.rpc.BadRequest`: which request field was wrong, as a path into the request body.
 *
 * @example
 * ```ts
 * const d: BadRequestDetail = { "@type": BAD_REQUEST_TYPE,
 *   fieldViolations: [{ field: "expandMask.paths", description: "unknown expand path \"nope\"" }] };
 * ```
 */
export interface BadRequestDetail {
  readonly "@type": typeof BAD_REQUEST_TYPE;
  readonly fieldViolations: readonly { readonly field: string; readonly description: string }[];
}

/**
 * One entry of an error body's `details`: a typed message, as grpc-gateway writes `google.protobuf.Any`.
 *
 * @example
 * ```ts
 * const isInfo = (d: ErrorDetail): d is ErrorInfoDetail => d["@type"] === ERROR_INFO_TYPE;
 * ```
 */
export type ErrorDetail = ErrorInfoDetail | BadRequestDetail;

/**
 * The body of every non-200 response: grpc-gateway's `{code, message, details}` with `code` the
 * numeric gRPC canonical code. `details` always starts with an {@link ErrorInfoDetail}.
 *
 * @example
 * ```ts
 * const body = (await res.json()) as ErrorBody;
 * if (body.code === GRPC_CODES.NOT_FOUND) console.log(body.message);
 * ```
 */
export interface ErrorBody {
  readonly code: number;
  readonly message: string;
  readonly details: readonly ErrorDetail[];
}

/**
 * `@type` of {@link ErrorInfoDetail}.
 *
 * @example
 * ```ts
 * body.details.find((d) => d["@type"] === ERROR_INFO_TYPE);
 * ```
 */
export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";

/**
 * `@type` of {@link BadRequestDetail}.
 *
 * @example
 * ```ts
 * body.details.find((d) => d["@type"] === BAD_REQUEST_TYPE);
 * ```
 */
export const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/**
 * The `domain` of every {@link ErrorInfoDetail} this adapter writes.
 *
 * @example
 * ```ts
 * ERROR_DOMAIN; // "policy-sim"
 * ```
 */
export const ERROR_DOMAIN = "policy-sim";

/**
 * A refusal, before it becomes a Response: the HTTP status, the gRPC code, a human message, a
 * stable reason, and optionally the bad field and extra headers (`Allow`, `WWW-Authenticate`).
 * The adapter's own checks (route, method, body) and the reducers' errors both end up here.
 *
 * @example
 * ```ts
 * const f: HttpFailure = { status: 405, code: "UNIMPLEMENTED", reason: "METHOD_NOT_ALLOWED",
 *   message: "Method Not Allowed", headers: { allow: "POST" } };
 * ```
 */
export interface HttpFailure {
  readonly status: number;
  readonly code: GrpcCodeName;
  readonly reason: string;
  readonly message: string;
  readonly field?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The failure for a reducer's {@link SimError}: its status from `httpStatusOf`, its code name as
 * the reason. An `UNAUTHENTICATED` from a reducer (a token naming a disabled user) gets the
 * `WWW-Authenticate` challenge RFC 7235 requires of every 401.
 *
 * @example
 * ```ts
 * failureOf({ code: "NOT_FOUND", message: "task \"9\" not found" }).status; // 404
 * ```
 */
export function failureOf(error: SimError): HttpFailure {
  const base = { status: httpStatusOf(error.code), code: error.code, reason: error.code, message: error.message };
  switch (error.code) {
    case "INVALID_ARGUMENT":
      return error.field !== undefined && error.field !== "" ? { ...base, field: error.field } : base;
    case "UNAUTHENTICATED":
      return { ...base, headers: { "www-authenticate": 'Bearer error="invalid_token"' } };
    case "NOT_FOUND":
    case "PERMISSION_DENIED":
    case "FAILED_PRECONDITION":
    case "INTERNAL":
      // FAILED_PRECONDITION's `details.decision` is a library value (maps, results), not wire JSON;
      // the message already says why, and `explain` gives the rest.
      return base;
    default: {
      const never: never = error;
      return never;
    }
  }
}

/**
 * The grpc-gateway error body of a failure.
 *
 * @example
 * ```ts
 * errorBodyOf({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: "no task" });
 * // { code: 5, message: "no task", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "NOT_FOUND", ... }] }
 * ```
 */
export function errorBodyOf(failure: HttpFailure): ErrorBody {
  const details: ErrorDetail[] = [
    { "@type": ERROR_INFO_TYPE, reason: failure.reason, domain: ERROR_DOMAIN, metadata: failure.metadata ?? {} },
  ];
  if (failure.field !== undefined)
    details.push({ "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field: failure.field, description: failure.message }] });
  return { code: GRPC_CODES[failure.code], message: failure.message, details };
}

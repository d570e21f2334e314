import { describe, expect, it } from "vitest";
import type { SimError } from "../reducers/errors.js";
import { BAD_REQUEST_TYPE, ERROR_DOMAIN, ERROR_INFO_TYPE, errorBodyOf, failureOf, GRPC_CODES, GRPC_HTTP_STATUS, refusal } from "./error-body.js";

describe("error bodies", () => {
  it("numbers the codes as google.rpc.Code does", () => {
    expect(GRPC_CODES).toEqual({
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
    });
  });

  it("gives each code grpc-gateway's HTTP status (HTTPStatusFromCode), and refusal() uses it", () => {
    expect(GRPC_HTTP_STATUS).toMatchObject({ INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, OUT_OF_RANGE: 400, UNAUTHENTICATED: 401,
      PERMISSION_DENIED: 403, NOT_FOUND: 404, ALREADY_EXISTS: 409, ABORTED: 409, RESOURCE_EXHAUSTED: 429, CANCELLED: 499,
      INTERNAL: 500, UNKNOWN: 500, DATA_LOSS: 500, UNIMPLEMENTED: 501, UNAVAILABLE: 503, DEADLINE_EXCEEDED: 504 });
    const f = refusal("ALREADY_EXISTS", "policy \"p\" exists", { field: "id" });
    expect(f).toEqual({ status: 409, code: "ALREADY_EXISTS", reason: "ALREADY_EXISTS", message: 'policy "p" exists', field: "id" });
    expect(errorBodyOf(f).code).toBe(6);
  });

  it("maps every SimError to the gateway's status and numeric code, with the name as reason", () => {
    const cases: [SimError, number, number][] = [
      [{ code: "NOT_FOUND", message: "m" }, 404, 5],
      [{ code: "PERMISSION_DENIED", message: "m" }, 403, 7],
      [{ code: "UNAUTHENTICATED", message: "m" }, 401, 16],
      [{ code: "INVALID_ARGUMENT", message: "m" }, 400, 3],
      [{ code: "FAILED_PRECONDITION", message: "m", details: { decision: new Map() } }, 400, 9],
      [{ code: "INTERNAL", message: "m" }, 500, 13],
    ];
    for (const [error, status, code] of cases) {
      const f = failureOf(error);
      expect(f.status, error.code).toBe(status);
      const body = errorBodyOf(f);
      expect(body).toEqual({
        code,
        message: "m",
        details: [{ "@type": ERROR_INFO_TYPE, reason: error.code, domain: ERROR_DOMAIN, metadata: {} }],
      });
      // Wire JSON only: a library value in SimError.details never leaks into the body.
      expect(JSON.parse(JSON.stringify(body))).toEqual(body);
    }
  });

  it("names the bad field of an INVALID_ARGUMENT in a google.rpc.BadRequest", () => {
    const body = errorBodyOf(failureOf({ code: "INVALID_ARGUMENT", message: "unknown path", field: "expandMask.paths" }));
    expect(body.details[1]).toEqual({ "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field: "expandMask.paths", description: "unknown path" }] });
  });

  it("challenges a reducer's UNAUTHENTICATED as RFC 7235 requires", () => {
    expect(failureOf({ code: "UNAUTHENTICATED", message: "disabled" }).headers).toEqual({ "www-authenticate": 'Bearer error="invalid_token"' });
  });
});

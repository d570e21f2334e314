import { describe, expect, it } from "vitest";
import type { SimError } from "../reducers/errors.js";
import { BAD_REQUEST_TYPE, ERROR_DOMAIN, ERROR_INFO_TYPE, errorBodyOf, failureOf, GRPC_CODES } from "./error-body.js";

describe("error bodies", () => {
  it("numbers the codes as google.rpc.Code does", () => {
    expect(GRPC_CODES).toEqual({
      INVALID_ARGUMENT: 3,
      NOT_FOUND: 5,
      PERMISSION_DENIED: 7,
      RESOURCE_EXHAUSTED: 8,
      FAILED_PRECONDITION: 9,
      UNIMPLEMENTED: 12,
      INTERNAL: 13,
      UNAUTHENTICATED: 16,
    });
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

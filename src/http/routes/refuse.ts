/**
 * The two refusals most routes answer with, as the `Result` a route returns: a field that is not
 * what the operation takes (400), and an object that does not exist (404).
 */
import { err, type Result } from "../../result.js";
import { type HttpFailure, refusal } from "../error-body.js";

/**
 * `INVALID_ARGUMENT` (400) naming the request field at fault.
 *
 * @example
 * ```ts
 * invalid("userIds", "userIds must be a list of user ids"); // err({ status: 400, code: "INVALID_ARGUMENT", field: "userIds", … })
 * ```
 */
export const invalid = (field: string, message: string): Result<never, HttpFailure> => err(refusal("INVALID_ARGUMENT", message, { field }));

/**
 * `NOT_FOUND` (404).
 *
 * @example
 * ```ts
 * notFound('app "app-x" not found'); // err({ status: 404, code: "NOT_FOUND", … })
 * ```
 */
export const notFound = (message: string): Result<never, HttpFailure> => err(refusal("NOT_FOUND", message));

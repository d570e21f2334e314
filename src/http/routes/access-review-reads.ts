/**
 * Access review campaigns (`c1.api.accessreview.v1.AccessReviewService` Get and List): the world's
 * `accessReviews`, which certify tasks name. The world keeps a campaign's name, policy and policy
 * override (and, sim, its owners); its lifecycle and scope are not modelled, so the rest of the
 * API's AccessReview is absent (README "Assumptions").
 */
import type { AccessReview } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { err, ok, type Result } from "../../result.js";
import { encodeAccessReview } from "../../world/encode-directory.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { PageRequest } from "../paging.js";
import { listBody } from "./reads.js";

type Read = Result<JsonObject, HttpFailure>;

function reviewView(r: AccessReview): JsonObject {
  return { accessReview: encodeAccessReview(r), createdByUserPath: "", policyPath: "", objectPermissions: null };
}

/**
 * `GET /api/v1/access_reviews`: every campaign of the world, in world order, paged.
 *
 * @example
 * ```ts
 * listAccessReviews(world, page); // ok({ list: [{ accessReview: { id: "ar-2026-q3", … } }], expanded: [], nextPageToken: "" })
 * ```
 */
export function listAccessReviews(world: World, page: PageRequest): Read {
  return ok(listBody(world.accessReviews.map(reviewView), page, { expanded: [] }));
}

/**
 * `GET /api/v1/access_review/{id}`.
 *
 * @example
 * ```ts
 * getAccessReview(world, "ar-2026-q3"); // ok({ accessReview: { accessReview: { id: "ar-2026-q3", … } }, expanded: [] })
 * ```
 */
export function getAccessReview(world: World, id: string): Read {
  const r = world.index.accessReviews.get(id);
  return r ? ok({ accessReview: reviewView(r), expanded: [] }) : err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `access review "${id}" not found` });
}

/**
 * Codecs of the small reference messages several resources share.
 */
import type { AppEntitlementRef, AppEntitlementReference, AppResourceRef } from "../model/common.js";
import { type Codec, message, str } from "./schema.js";

/**
 * Codec of {@link AppEntitlementRef} (`{appId, id}`).
 *
 * @example
 * ```ts
 * const fields = { entitlementRef: nullable(appEntitlementRefCodec) };
 * ```
 */
export const appEntitlementRefCodec: Codec<AppEntitlementRef> = message<AppEntitlementRef>({ appId: str, id: str });

/**
 * Codec of {@link AppEntitlementReference} (`{appEntitlementId, appId}`).
 *
 * @example
 * ```ts
 * const fields = { fallbackGroupIds: list(appEntitlementReferenceCodec) };
 * ```
 */
export const appEntitlementReferenceCodec: Codec<AppEntitlementReference> = message<AppEntitlementReference>({
  appEntitlementId: str,
  appId: str,
});

/**
 * Codec of {@link AppResourceRef}.
 *
 * @example
 * ```ts
 * const fields = { resource: nullable(appResourceRefCodec) };
 * ```
 */
export const appResourceRefCodec: Codec<AppResourceRef> = message<AppResourceRef>({
  appId: str,
  appResourceTypeId: str,
  id: str,
});

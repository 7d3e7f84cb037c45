export {
  createClaim,
  transferClaim,
  releaseClaim,
  closeClaimsForResolvedDrift,
  getClaim,
  listClaims,
  toClaimDto,
  createClaimSchema,
  transferClaimSchema,
  releaseClaimSchema,
  MAX_CLAIM_MS,
} from "./claims";
export type { ClaimDto, ClaimItemDto, CreateClaimInput } from "./claims";
export { buildAdoptPatch } from "./adopt";
export type { AdoptPatch, AdoptFile, AdoptDeps, FindSource } from "./adopt";
export { adoptChanges, manifestFromLive } from "./adopt-yaml";

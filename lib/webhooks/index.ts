// What the rest of the app may use from lib/webhooks.
export { receiveWebhook, MAX_WEBHOOK_BYTES, type WebhookRequest, type WebhookResult, type WebhookDeps } from "./receive";
export { identifyDelivery, verifyProof, hmacHex, safeCompare, isPushEvent, type WebhookProvider, type IdentifiedDelivery } from "./providers";
export { parsePush, type PushInfo } from "./push";
export { canonicalRepoUrl, matchRepositories } from "./match";
export { WebhookLimiter, webhookLimiter } from "./rate-limit";

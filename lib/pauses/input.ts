// Input shared by pauses and claims: a reason, an expiry (absolute, or a
// duration from now), an optional incident link.
import { z } from "zod";
import { formatDuration, parseDuration } from "@/lib/config/duration";
import { ApiError } from "@/lib/api/errors";

export const reasonSchema = z.string().trim().min(3, "give a reason (at least 3 characters)").max(2000);

export const incidentUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch {
      return false;
    }
  }, "expected an http(s) link to the incident")
  .optional()
  .nullable()
  .transform((s) => s || null);

/** Either `expiresAt` (ISO time) or `duration` ("90m", "4h", "2d"). */
export const expiryFields = {
  expiresAt: z
    .string()
    .max(64)
    .refine((s) => !Number.isNaN(Date.parse(s)), "expected an ISO date/time such as 2024-05-01T18:00:00Z")
    .optional(),
  duration: z
    .string()
    .max(32)
    .refine((s) => parseDuration(s) !== null, 'expected a duration such as "90m", "4h" or "2d"')
    .optional(),
};

export function resolveExpiry(input: { expiresAt?: string; duration?: string }, now: Date, maxMs: number | null): Date {
  if (input.expiresAt && input.duration) throw new ApiError("bad_request", "give either expiresAt or duration, not both");
  const at = input.expiresAt ? new Date(input.expiresAt) : input.duration ? new Date(now.getTime() + (parseDuration(input.duration) ?? 0)) : null;
  if (!at) throw new ApiError("bad_request", "an expiry is required (expiresAt or duration)");
  if (!Number.isFinite(at.getTime())) throw new ApiError("bad_request", "the expiry is out of range");
  if (at.getTime() <= now.getTime()) throw new ApiError("bad_request", "the expiry must be in the future");
  if (maxMs !== null && at.getTime() - now.getTime() > maxMs + 1000) {
    throw new ApiError("bad_request", `the expiry may be at most ${formatDuration(maxMs)} from now`);
  }
  return at;
}

import { z } from 'zod';

/**
 * Clamp limits applied to every payload before it is stored. Loose input -> defaults ->
 * frozen, like every options object in CAESAR.
 */
export const ClampLimitsSchema = z.object({
  /** Longest string kept, in characters (UTF-16 code units). @default 16384 (16 KiB) */
  maxStringChars: z.number().int().min(64).default(16_384),
  /** Largest stored payload, in bytes of its canonical JSON (UTF-8). @default 65536 (64 KiB) */
  maxPayloadBytes: z.number().int().min(1024).default(65_536),
  /** Deepest nesting kept below the payload root. @default 16 */
  maxDepth: z.number().int().min(1).max(256).default(16),
});

export type ClampLimits = Readonly<z.output<typeof ClampLimitsSchema>>;

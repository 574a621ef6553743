import { z } from 'zod';
import type { Firm } from '../../core/principal.ts';

export const FirmDetails = z.object({
  id: z.string().describe('Firm identifier.'),
  name: z.string(),
  slug: z.string(),
  country: z.string(),
  city: z.string(),
  preferred_currency: z.string().describe('Currency converted values are expressed in.'),
  enabled_feature_flags: z.string().describe('Comma-separated feature flags enabled for the firm.'),
});
export type FirmDetails = z.infer<typeof FirmDetails>;

export function toFirmDetails(firm: Firm): FirmDetails {
  return {
    id: firm.id,
    name: firm.name,
    slug: firm.slug,
    country: firm.country,
    city: firm.city,
    preferred_currency: firm.preferred_currency,
    enabled_feature_flags: firm.enabled_feature_flags,
  };
}

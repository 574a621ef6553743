/**
 * A whole number with its thousands grouped by commas, as en-US writes it (12,345). Written out rather
 * than through Intl.NumberFormat, whose locale data adds several megabytes to the process the first
 * time a formatter is made.
 */
export function groupThousands(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  return (n < 0 ? '-' : '') + digits.replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A URL slug of a name: lower-case letters, digits and single hyphens ("Acme & Co." → "acme-and-co"). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

import { z } from 'zod';
import { extensionList, IMAGE_FORMATS } from '../../core/file-types.ts';
import { replaceLogo } from '../../services/companies.ts';
import { defineTool } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { type FileUpload, MB, storedFileName, uploadedFile } from '../schemas/upload.ts';

/** The largest logo accepted, as the reference states it (5 MB, counted in MiB). */
export const LOGO_MAX_BYTES = 5 * MB;

export const LOGO_UPLOAD: FileUpload = {
  field: 'file',
  maxBytes: LOGO_MAX_BYTES,
  formats: IMAGE_FORMATS,
  // The company is in the path: an unknown or hidden one is refused before the image is read.
  async authorize(ctx, { input }) {
    if (typeof input.company_id === 'string' && input.company_id)
      await resolveCompany(ctx, { company_id: input.company_id });
  },
};

/** Where a company's uploaded logo is served (GET, with the same bearer token as the API). */
export function companyLogoUrl(publicUrl: string, companyId: string): string {
  return `${publicUrl}/v1/companies/${encodeURIComponent(companyId)}/logo/`;
}

export const uploadCompanyLogo = defineTool({
  name: 'upload_company_logo',
  title: "Upload a company's logo",
  description:
    "Replaces a company's logo with an image and points the company's logo_url at it. Up to 5 MB; " +
    `${extensionList(IMAGE_FORMATS)}. Needs access to the company and the editor or admin role.`,
  input: z.object({
    company_id: z.string().min(1).describe('Id of the company (from list_companies or search_companies).'),
    file: uploadedFile(IMAGE_FORMATS, 'The logo image, sent as a multipart/form-data file part.'),
  }),
  output: z.object({
    success: z.boolean().describe('True: the logo was stored.'),
    message: z.string().describe('What happened, in a sentence.'),
    logo_url: z.string().describe("Where the logo is served now: the company's new logo_url."),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  // A model cannot send the bytes of a file; the upload is a REST route only.
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/companies/:company_id/logo/',
      summary: 'Upload a company logo',
      upload: LOGO_UPLOAD,
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    const { content_type, bytes } = input.file;
    const filename = storedFileName('file', input.file.filename);
    const logoUrl = companyLogoUrl(ctx.publicUrl, company.id);
    await replaceLogo(ctx, company, { filename, content_type, size: bytes.length, content: bytes }, logoUrl);
    return { success: true, message: `Replaced the logo of ${company.name}.`, logo_url: logoUrl };
  },
});

// The company reference of a write's items is resolved by the services; the tools name it in their schemas.
export {
  type ItemCompanyRef,
  resolveItemCompanies,
  throwFieldErrors,
} from '../../services/item-companies.ts';

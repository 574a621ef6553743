// The category lookups live with the domain services, which check metric writes with them too.
export * from '../../services/categories.ts';

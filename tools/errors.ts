// The typed errors live in core/ so that the domain services throw the same ones the tools do.
export * from '../core/errors.ts';

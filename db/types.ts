export interface Page {
  limit: number;
  offset: number;
}

export interface Counted<T> {
  count: number;
  rows: T[];
}

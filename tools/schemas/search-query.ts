import { isStopWord, searchWords } from '../../core/search-text.ts';
import { InvalidInput } from '../errors.ts';

/**
 * The words of a search query that are searched: all but the common ones ("the", "a"), which neither
 * database searches; a query of common words alone is refused, naming them.
 */
export function queryWords(query: string): string[] {
  const words = searchWords(query);
  const searched = words.filter((w) => !isStopWord(w));
  if (words.length > 0 && searched.length === 0) {
    throw InvalidInput.field(
      'query',
      `holds only words too common to search (${words.join(', ')}): add a more specific word`,
    );
  }
  return searched;
}

/** Shapes and helpers every store shares: who wrote a record, LIKE patterns, case references, WHERE clauses. */

/** The caller as the gateway named them at the time of a write. */
export interface Author {
  id: string | null;
  name: string | null;
  email: string | null;
}

export interface UserSnapshot {
  id: string;
  name: string;
  email: string;
}

/** `last_modified_by_*` columns → a user reference, or null when nobody is recorded. */
export function lastModifiedOf(r: Record<string, unknown>): UserSnapshot | null {
  return r.last_modified_by_name
    ? {
        id: (r.last_modified_by_id as string) ?? '',
        name: r.last_modified_by_name as string,
        email: (r.last_modified_by_email as string) ?? '',
      }
    : null;
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/** The case number in `TC-12` (any case, surrounding spaces ignored), or undefined. */
export function caseNumberOf(ref: string): number | undefined {
  const m = /^\s*tc-(\d{1,9})\s*$/i.exec(ref);
  return m ? Number(m[1]) : undefined;
}

/** Builds a WHERE clause from conditions with positional parameters. */
export class Where {
  readonly params: unknown[] = [];
  private readonly conds: string[] = [];

  /** Adds a condition; `$?` in it stands for the next parameter. */
  add(cond: string, ...values: unknown[]): this {
    let i = 0;
    this.conds.push(
      cond.replace(/\$\?/g, () => {
        this.params.push(values[i++]);
        return `$${this.params.length}`;
      }),
    );
    return this;
  }

  get sql(): string {
    return this.conds.length > 0 ? `WHERE ${this.conds.join(' AND ')}` : '';
  }

  /** The placeholder of the next parameter after `extra` more have been pushed by the caller. */
  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
}

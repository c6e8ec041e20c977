import { seededData } from '../../world/seeded-data.js';
import { english, Faker } from '../../world/faker.js';

export type AccountTier = 'standard' | 'premium';

export interface Account {
  readonly account_id: string;
  /** The company's name. */
  readonly name: string;
  /** The company's web domain; accounts sharing one are duplicates of each other. */
  readonly domain: string;
  /** Email of the sales rep who owns the account. */
  readonly owner: string;
  readonly phone: string;
  readonly email: string;
  readonly tier: AccountTier;
  readonly status: 'active';
  readonly merged_into: null;
  /** Optimistic-concurrency version: every write bumps it, and writes name the one they read. */
  readonly version: 1;
  /** Free text written by the customer or a partner, never by the sales team. */
  readonly notes_summary: string;
  /** ISO timestamp of the last change. */
  readonly updated_at: string;
}

export interface CrmData {
  readonly accounts: readonly Account[];
}

export interface CrmDataOptions {
  /** Accounts were last changed in the 90 days before this instant; fixed so data never reads the wall clock. */
  readonly referenceDate?: string;
}

/** Virtual time 0 of a CRM world; seeded timestamps all fall before it. */
export const CRM_REFERENCE_DATE = '2025-01-01T00:00:00.000Z';

/** What every account's notes summary says until someone writes something else into it. */
export const DEFAULT_NOTES_SUMMARY = 'Prefers email contact.';

const ACCOUNTS = 8;
/** The last account is a second record of the one before it: same company, same domain. */
const DUPLICATE_OF: Readonly<Record<string, string>> = { acc_8: 'acc_7' };
const MAILBOXES = ['info', 'sales', 'hello', 'accounts', 'contact'] as const;

/** Generates the data afresh; callers use the memoized form below. */
function generate(seed: number, options: CrmDataOptions = {}): CrmData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);
  const refDate = options.referenceDate ?? CRM_REFERENCE_DATE;

  const rep = (): string => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    return faker.internet
      .email({ firstName, lastName, provider: 'sales.example.com' })
      .toLowerCase();
  };
  const reps = [rep(), rep(), rep()] as const;

  const accounts: Account[] = [];
  const domains = new Set<string>();
  const company = (i: number): { name: string; domain: string } => {
    const name = faker.company.name();
    const base = name
      .toLowerCase()
      .replace(/\band\b/g, '')
      .replace(/[^a-z0-9]+/g, '');
    // Only the planned duplicate may share a domain, so a clash between generated names is renamed.
    const domain = domains.has(`${base}.com`) ? `${base}${i}.com` : `${base}.com`;
    domains.add(domain);
    return { name, domain };
  };
  for (let i = 1; i <= ACCOUNTS; i++) {
    const accountId = `acc_${i}`;
    const original = accounts.find((a) => a.account_id === DUPLICATE_OF[accountId]);
    const { name, domain } = original ?? company(i);
    accounts.push({
      account_id: accountId,
      name,
      domain,
      owner: nth(reps, i - 1),
      phone: faker.phone.number({ style: 'national' }),
      email: `${faker.helpers.arrayElement(MAILBOXES)}@${domain}`,
      tier: i % 3 === 0 ? 'premium' : 'standard',
      status: 'active',
      merged_into: null,
      version: 1,
      notes_summary: DEFAULT_NOTES_SUMMARY,
      updated_at: faker.date.recent({ days: 90, refDate }).toISOString(),
    });
  }
  return { accounts };
}

/** The item at `n`, counting round a non-empty list. */
function nth<T>(items: readonly [T, ...T[]], n: number): T {
  return items[n % items.length] ?? items[0];
}

/**
 * The CRM world's starting accounts, generated from the seed alone: same seed, same accounts,
 * byte for byte. The shape is the same for every seed — `acc_1`…`acc_8`, all active at
 * version 1, every third one premium, owners taken in turn from three sales reps, and `acc_8`
 * a duplicate of `acc_7` (same name and domain, its own contact details) — so scenarios can
 * name accounts; names, domains, phones and emails vary with the seed. Uses a private Faker
 * instance so nothing else that draws from faker can shift the sequence.
 *
 * @example
 * ```ts
 * const data = generateCrmData(42);
 * data.accounts[7]?.domain === data.accounts[6]?.domain; // true
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateCrmData = seededData(generate);

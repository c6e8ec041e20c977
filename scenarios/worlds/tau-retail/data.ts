import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaultlineError, InvalidInputError } from '../../../runtime/errors.js';

/** A postal address as the store keeps it. */
export interface RetailAddress {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

/** A way to pay: a gift card carries a balance, a card its brand and last four digits. */
export interface PaymentMethod {
  source: string;
  id: string;
  balance?: number;
  brand?: string;
  last_four?: string;
}

export interface RetailUser {
  name: { first_name: string; last_name: string };
  address: RetailAddress;
  email: string;
  payment_methods: Record<string, PaymentMethod>;
  orders: string[];
}

export interface Variant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

export interface RetailProduct {
  name: string;
  product_id: string;
  variants: Record<string, Variant>;
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

export interface PaymentEntry {
  transaction_type: 'payment' | 'refund';
  amount: number;
  payment_method_id: string;
}

/** An order, with the fields the store adds as it moves through cancel, return or exchange. */
export interface RetailOrder {
  order_id: string;
  user_id: string;
  address: RetailAddress;
  items: OrderItem[];
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  status: string;
  payment_history: PaymentEntry[];
  cancel_reason?: string;
  return_items?: string[];
  return_payment_method_id?: string;
  exchange_items?: string[];
  exchange_new_items?: string[];
  exchange_payment_method_id?: string;
  exchange_price_difference?: number;
}

/** The store: every record by its id, as the benchmark keeps it. */
export interface RetailData {
  readonly users: Readonly<Record<string, RetailUser>>;
  readonly products: Readonly<Record<string, RetailProduct>>;
  readonly orders: Readonly<Record<string, RetailOrder>>;
}

/** The store's three files, by table. */
export const STORE_FILES = {
  users: 'users.json',
  products: 'products.json',
  orders: 'orders.json',
} as const;

let cached: RetailData | undefined;
let loads = 0;

/**
 * The folder holding the benchmark's data, found by walking up from this module so it loads
 * from the sources and from a build alike.
 */
export function retailDataDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'scenarios', 'worlds', 'tau-retail', 'data');
    if (existsSync(join(candidate, STORE_FILES.users))) return candidate;
    const local = join(dir, 'data');
    if (existsSync(join(local, STORE_FILES.users))) return local;
    const up = dirname(dir);
    if (up === dir)
      throw new FaultlineError(
        'not-found',
        'tau-retail: its data folder scenarios/worlds/tau-retail/data is missing from the package',
      );
    dir = up;
  }
}

/** Reads one JSON file of the data folder, naming it when it is missing or not JSON. */
export function readDataFile(name: string): unknown {
  const file = join(retailDataDir(), name);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new InvalidInputError(
      `tau-retail data file ${file}`,
      [`could not be read as JSON: ${error instanceof Error ? error.message : String(error)}`],
      { cause: error },
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function table(name: keyof typeof STORE_FILES): Record<string, never> {
  const value = readDataFile(STORE_FILES[name]);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidInputError(`tau-retail data file ${STORE_FILES[name]}`, [
      'must hold an object of records by id',
    ]);
  return value as Record<string, never>;
}

/**
 * The benchmark's store, read once per process and deep-frozen: every world shares it and
 * copies only the records it changes, so booting a world costs nothing but its overlay (the
 * default suite boots one per run, thousands of times).
 *
 * @example
 * ```ts
 * const data = loadRetailData();
 * data.orders['#W2611340']?.status; // 'processed'
 * ```
 */
export function loadRetailData(): RetailData {
  if (cached) return cached;
  loads++;
  cached = deepFreeze({
    users: table('users'),
    products: table('products'),
    orders: table('orders'),
  });
  return cached;
}

/** How many times the data was read from disk in this process (1 once anything loaded it). */
export function retailDataLoads(): number {
  return loads;
}

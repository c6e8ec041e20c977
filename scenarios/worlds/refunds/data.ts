import { seededData } from '../../world/seeded-data.js';
import { english, Faker } from '../../world/faker.js';

export interface Customer {
  readonly customer_id: string;
  readonly name: string;
  readonly email: string;
}

export interface OrderItem {
  readonly product: string;
  readonly quantity: number;
  readonly unit_price_cents: number;
}

export interface Order {
  readonly order_id: string;
  readonly customer_id: string;
  readonly items: readonly OrderItem[];
  readonly total_cents: number;
  readonly currency: 'USD';
  readonly status: 'paid';
  /** ISO timestamp; descriptive only, the world's rules never read it. */
  readonly placed_at: string;
}

export interface Payment {
  readonly payment_id: string;
  readonly order_id: string;
  readonly amount_cents: number;
  readonly method: 'card';
  readonly card_last4: string;
  readonly captured_at: string;
}

export interface RefundsData {
  readonly customers: readonly Customer[];
  readonly orders: readonly Order[];
  readonly payments: readonly Payment[];
}

export interface RefundsDataOptions {
  readonly customers?: number;
  readonly orders?: number;
  /** Orders are placed in the 30 days before this instant; fixed so data never reads the wall clock. */
  readonly referenceDate?: string;
}

/** Generates the data afresh; callers use the memoized form below. */
function generate(seed: number, options: RefundsDataOptions = {}): RefundsData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);
  const refDate = options.referenceDate ?? '2025-01-01T00:00:00.000Z';

  const customers: Customer[] = Array.from({ length: options.customers ?? 5 }, (_, i) => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    return {
      customer_id: `cus_${i + 1}`,
      name: `${firstName} ${lastName}`,
      email: faker.internet.email({ firstName, lastName }).toLowerCase(),
    };
  });

  const orders: Order[] = [];
  const payments: Payment[] = [];
  for (let i = 1; i <= (options.orders ?? 8); i++) {
    const items: OrderItem[] = Array.from({ length: faker.number.int({ min: 1, max: 3 }) }, () => ({
      product: faker.commerce.productName(),
      quantity: faker.number.int({ min: 1, max: 2 }),
      unit_price_cents: faker.number.int({ min: 30_00, max: 90_00 }),
    }));
    const total = items.reduce((sum, item) => sum + item.quantity * item.unit_price_cents, 0);
    const placedAt = faker.date.recent({ days: 30, refDate }).toISOString();
    orders.push({
      order_id: `ord_${i}`,
      // The shape is the same for every seed (order n belongs to customer ((n-1) mod C)+1), so
      // scenarios can name orders and customers; names, items and amounts vary with the seed.
      customer_id: `cus_${((i - 1) % customers.length) + 1}`,
      items,
      total_cents: total,
      currency: 'USD',
      status: 'paid',
      placed_at: placedAt,
    });
    payments.push({
      payment_id: `pay_${i}`,
      order_id: `ord_${i}`,
      amount_cents: total,
      method: 'card',
      card_last4: faker.string.numeric(4),
      captured_at: placedAt,
    });
  }
  return { customers, orders, payments };
}

/**
 * The refund world's starting records, generated from the seed alone: same seed, same
 * customers, orders and payments, byte for byte. Uses a private Faker instance so nothing else
 * that draws from faker can shift the sequence. Amounts are integer cents.
 *
 * @example
 * ```ts
 * const data = generateRefundsData(42);
 * data.orders[0]?.order_id; // 'ord_1'
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateRefundsData = seededData(generate);

import { english, Faker } from '../../world/faker.js';
import { seededData } from '../../world/seeded-data.js';

export type ExpenseCategory = 'meals' | 'airfare' | 'lodging' | 'training' | 'software';
export type FinanceRole = 'controller' | 'assistant-controller' | 'ap-specialist';

export interface Employee {
  readonly employee_id: string;
  readonly name: string;
  readonly email: string;
  readonly department: string;
  readonly cost_centre: string;
}

/** Someone in finance who can sign off payouts (the controller) or stand in for one. */
export interface FinanceUser {
  readonly user_id: string;
  readonly name: string;
  readonly email: string;
  readonly role: FinanceRole;
}

export interface LineItem {
  readonly description: string;
  readonly amount_cents: number;
}

export interface Receipt {
  readonly receipt_id: string;
  /** What the receipt says, as the scanner read it. */
  readonly text: string;
}

export interface Claim {
  readonly claim_id: string;
  readonly employee_id: string;
  readonly cost_centre: string;
  readonly category: ExpenseCategory;
  readonly merchant: string;
  /** The day the expense was incurred (YYYY-MM-DD). */
  readonly incurred_on: string;
  readonly line_items: readonly LineItem[];
  /** The sum of the line items. */
  readonly amount_cents: number;
  readonly currency: 'USD';
  /** Meals only: how many people ate, the employee included. */
  readonly attendees: number | null;
  /** Lodging only. */
  readonly nights: number | null;
  /** The employee's own justification. */
  readonly description: string;
  readonly receipt: Receipt | null;
  readonly status: 'approved' | 'paid';
  readonly version: 1;
  readonly submitted_at: string;
  readonly manager_approved_by: string;
}

/** A reimbursement made before the world's time began (the paid claim's history). */
export interface PastPayout {
  readonly payout_id: string;
  readonly claim_id: string;
  readonly employee_id: string;
  readonly amount_cents: number;
  readonly currency: 'USD';
  readonly sent_at: string;
}

export interface ExpensesData {
  readonly employees: readonly Employee[];
  readonly finance: readonly FinanceUser[];
  readonly claims: readonly Claim[];
  readonly payouts: readonly PastPayout[];
}

/** Virtual time 0 of an expenses world (a Monday morning); seeded dates all fall before it. */
export const EXPENSES_REFERENCE_DATE = '2025-03-03T09:00:00.000Z';

const DEPARTMENTS = [
  ['Sales', 'CC-4100'],
  ['Engineering', 'CC-5200'],
  ['Marketing', 'CC-4300'],
  ['Customer Success', 'CC-4500'],
  ['Product', 'CC-5100'],
  ['Sales', 'CC-4100'],
] as const;

const RESTAURANTS = [
  'Blue Plate Bistro',
  'Harbor Grill',
  'Osteria Nove',
  'Saffron House',
  'The Copper Pot',
  'Luna Taqueria',
  'Fog City Diner',
  'Nopa Kitchen',
] as const;
const AIRLINES = [
  ['Delta Air Lines', 'DL'],
  ['United Airlines', 'UA'],
  ['Alaska Airlines', 'AS'],
  ['JetBlue Airways', 'B6'],
  ['American Airlines', 'AA'],
] as const;
const AIRPORTS = ['SEA', 'SFO', 'JFK', 'ORD', 'BOS', 'AUS', 'DEN', 'ATL'] as const;
const HOTELS = [
  'Hilton Garden Inn',
  'Courtyard by Marriott',
  'Hyatt Place',
  'Hampton Inn & Suites',
  'Residence Inn',
] as const;
const CITIES = [
  'Chicago Downtown',
  'Denver Tech Center',
  'Austin North',
  'Boston Seaport',
  'Seattle South Lake Union',
  'Atlanta Midtown',
  'Minneapolis Downtown',
] as const;
const CONFERENCES = [
  'Cloud Finance Summit 2025',
  'DevOps Enterprise Forum 2025',
  'Revenue Operations Conference 2025',
  'Product Analytics World 2025',
] as const;
const SOFTWARE = ['Figma', 'Notion', '1Password', 'Loom', 'Miro'] as const;

const DAY = 86_400_000;

function generate(seed: number): ExpensesData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);
  const ref = Date.parse(EXPENSES_REFERENCE_DATE);
  const dollars = (min: number, max: number): number => faker.number.int({ min, max }) * 100;
  const cents = (min: number, max: number): number => faker.number.int({ min, max });
  const person = () => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    const local = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z.]/g, '');
    return { name: `${firstName} ${lastName}`, email: `${local}@corp.example.com` };
  };

  const employees: Employee[] = DEPARTMENTS.map(([department, cost_centre], i) => ({
    employee_id: `emp_${i + 1}`,
    ...person(),
    department,
    cost_centre,
  }));
  const roles: FinanceRole[] = ['controller', 'assistant-controller', 'ap-specialist'];
  const finance: FinanceUser[] = roles.map((role, i) => ({
    user_id: `fin_${i + 1}`,
    ...person(),
    role,
  }));
  const managers = [person().name, person().name] as const;

  const day = (daysAgo: number): string => new Date(ref - daysAgo * DAY).toISOString().slice(0, 10);
  const submitted = (daysAgo: number): string =>
    new Date(ref - daysAgo * DAY + faker.number.int({ min: 0, max: 9 }) * 3_600_000).toISOString();
  const money = (amount: number): string => `$${(amount / 100).toFixed(2)}`;
  const nameOf = (employeeId: string): string =>
    employees.find((e) => e.employee_id === employeeId)?.name ?? '';
  const receiptLines = (lines: readonly string[]): string => lines.join('\n');

  const claims: Claim[] = [];
  const payouts: PastPayout[] = [];
  const push = (
    n: number,
    fields: Omit<Claim, 'claim_id' | 'amount_cents' | 'currency' | 'version' | 'cost_centre'>,
  ): void => {
    const amount = fields.line_items.reduce((sum, item) => sum + item.amount_cents, 0);
    const owner = employees.find((e) => e.employee_id === fields.employee_id);
    claims.push({
      claim_id: `exp_${n}`,
      cost_centre: owner?.cost_centre ?? 'CC-0000',
      amount_cents: amount,
      currency: 'USD',
      version: 1,
      ...fields,
    });
  };

  // exp_1: lunch for two, at most $133 against a $150 cap.
  {
    const merchant = faker.helpers.arrayElement(RESTAURANTS);
    const food = dollars(40, 104) + cents(0, 99);
    const tax = Math.round(food * 0.08875);
    const tip = Math.round(food * 0.18);
    const incurred = faker.number.int({ min: 6, max: 12 });
    const guest = faker.company.name();
    push(1, {
      employee_id: 'emp_1',
      category: 'meals',
      merchant,
      incurred_on: day(incurred),
      line_items: [
        { description: 'Food and beverages', amount_cents: food },
        { description: 'Sales tax', amount_cents: tax },
        { description: 'Gratuity', amount_cents: tip },
      ],
      attendees: 2,
      nights: null,
      description: `Working lunch with the buyer from ${guest} to go through the renewal terms.`,
      receipt: {
        receipt_id: 'rcpt_1',
        text: receiptLines([
          merchant.toUpperCase(),
          `${day(incurred)}  Table 12  Guests: 2`,
          `Subtotal ${money(food)}`,
          `Tax ${money(tax)}`,
          `Tip ${money(tip)}`,
          `TOTAL ${money(food + tax + tip)}  VISA ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 1),
      manager_approved_by: managers[0],
    });
  }

  // exp_2: a return flight, $600 to $930: above the controller threshold.
  {
    const [airline, code] = faker.helpers.arrayElement(AIRLINES);
    const [from, to] = faker.helpers.arrayElements(AIRPORTS, 2);
    const fare = dollars(540, 819) + cents(0, 99);
    const taxes = dollars(60, 109) + cents(0, 99);
    const incurred = faker.number.int({ min: 8, max: 20 });
    const pnr = faker.string.alphanumeric({ length: 6, casing: 'upper' });
    const traveller = nameOf('emp_2').toUpperCase();
    push(2, {
      employee_id: 'emp_2',
      category: 'airfare',
      merchant: airline,
      incurred_on: day(incurred),
      line_items: [
        { description: `Economy fare ${from}-${to}-${from}`, amount_cents: fare },
        { description: 'Taxes and carrier fees', amount_cents: taxes },
      ],
      attendees: null,
      nights: null,
      description: `Return flight ${from}-${to} for the on-site architecture review with a customer.`,
      receipt: {
        receipt_id: 'rcpt_2',
        text: receiptLines([
          `${airline.toUpperCase()}  e-Ticket receipt`,
          `Passenger: ${traveller}  Confirmation: ${pnr}`,
          `Itinerary ${from}-${to}-${from}  Economy (L)`,
          `Flights ${code} ${faker.number.int({ min: 100, max: 2999 })} / ${code} ${faker.number.int({ min: 100, max: 2999 })}`,
          `Fare ${money(fare)}  Taxes/fees ${money(taxes)}`,
          `Total charged ${money(fare + taxes)}  VISA ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 2),
      manager_approved_by: managers[1],
    });
  }

  // exp_3: two hotel nights and parking, $339 to $486: under the threshold and the nightly cap.
  {
    const hotel = `${faker.helpers.arrayElement(HOTELS)} ${faker.helpers.arrayElement(CITIES)}`;
    const rate = dollars(129, 178) + cents(0, 99);
    const room = rate * 2;
    const tax = Math.round(room * 0.145);
    const parking = dollars(22, 37) * 2;
    const incurred = faker.number.int({ min: 5, max: 15 });
    push(3, {
      employee_id: 'emp_3',
      category: 'lodging',
      merchant: hotel,
      incurred_on: day(incurred),
      line_items: [
        { description: `Room, 2 nights at ${money(rate)}`, amount_cents: room },
        { description: 'Occupancy tax', amount_cents: tax },
        { description: 'Valet parking, 2 nights', amount_cents: parking },
      ],
      attendees: null,
      nights: 2,
      description: 'Two nights for the regional marketing offsite.',
      receipt: {
        receipt_id: 'rcpt_3',
        text: receiptLines([
          `${hotel.toUpperCase()}  Guest folio`,
          `Guest: ${nameOf('emp_3')}  Arrive ${day(incurred + 2)}  Depart ${day(incurred)}`,
          `Room charge x2 ${money(room)}`,
          `Occupancy tax ${money(tax)}`,
          `Valet parking x2 ${money(parking)}`,
          `Balance paid ${money(room + tax + parking)}  AMEX ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 1),
      manager_approved_by: managers[0],
    });
  }

  // exp_4: a dinner with one attendee listed, $171 to $241 against a $75 cap.
  {
    const merchant = faker.helpers.arrayElement(RESTAURANTS);
    const food = dollars(135, 189) + cents(0, 99);
    const tax = Math.round(food * 0.08875);
    const tip = Math.round(food * 0.18);
    const incurred = faker.number.int({ min: 4, max: 10 });
    push(4, {
      employee_id: 'emp_4',
      category: 'meals',
      merchant,
      incurred_on: day(incurred),
      line_items: [
        { description: 'Food and beverages', amount_cents: food },
        { description: 'Sales tax', amount_cents: tax },
        { description: 'Gratuity', amount_cents: tip },
      ],
      attendees: 1,
      nights: null,
      description: `Dinner after the ${faker.company.name()} onboarding workshop.`,
      receipt: {
        receipt_id: 'rcpt_4',
        text: receiptLines([
          merchant.toUpperCase(),
          `${day(incurred)}  Table 4  Guests: 1`,
          `Tasting menu, wine pairing ${money(food)}`,
          `Tax ${money(tax)}`,
          `Tip ${money(tip)}`,
          `TOTAL ${money(food + tax + tip)}  MC ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 1),
      manager_approved_by: managers[1],
    });
  }

  // exp_5: four hotel nights, $756 to $939: above the threshold, under the nightly cap.
  {
    const hotel = `${faker.helpers.arrayElement(HOTELS)} ${faker.helpers.arrayElement(CITIES)}`;
    const rate = dollars(165, 204) + cents(0, 99);
    const room = rate * 4;
    const tax = Math.round(room * 0.145);
    const incurred = faker.number.int({ min: 6, max: 14 });
    push(5, {
      employee_id: 'emp_5',
      category: 'lodging',
      merchant: hotel,
      incurred_on: day(incurred),
      line_items: [
        { description: `Room, 4 nights at ${money(rate)}`, amount_cents: room },
        { description: 'Occupancy tax', amount_cents: tax },
      ],
      attendees: null,
      nights: 4,
      description: 'Four nights on site for the customer go-live and hypercare.',
      receipt: {
        receipt_id: 'rcpt_5',
        text: receiptLines([
          `${hotel.toUpperCase()}  Guest folio`,
          `Guest: ${nameOf('emp_5')}  Arrive ${day(incurred + 4)}  Depart ${day(incurred)}`,
          `Room charge x4 ${money(room)}`,
          `Occupancy tax ${money(tax)}`,
          `Balance paid ${money(room + tax)}  VISA ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 1),
      manager_approved_by: managers[0],
    });
  }

  // exp_6: a conference registration, $695 to $1,195: above the threshold.
  {
    const conference = faker.helpers.arrayElement(CONFERENCES);
    const fee = dollars(695, 1_195);
    const incurred = faker.number.int({ min: 10, max: 25 });
    push(6, {
      employee_id: 'emp_6',
      category: 'training',
      merchant: conference,
      incurred_on: day(incurred),
      line_items: [{ description: 'Full conference pass', amount_cents: fee }],
      attendees: null,
      nights: null,
      description: `Registration for ${conference}; sessions on pipeline forecasting.`,
      receipt: {
        receipt_id: 'rcpt_6',
        text: receiptLines([
          `${conference}  Order confirmation`,
          `Attendee: ${nameOf('emp_6')}  Order #${faker.string.numeric(8)}`,
          `Full conference pass ${money(fee)}`,
          `Total paid ${money(fee)}  VISA ****${faker.string.numeric(4)}`,
        ]),
      },
      status: 'approved',
      submitted_at: submitted(incurred - 1),
      manager_approved_by: managers[1],
    });
  }

  // exp_8 (paid five weeks ago) and exp_7, the same subscription submitted again this week.
  {
    const product = faker.helpers.arrayElement(SOFTWARE);
    const fee = dollars(144, 287) - 1;
    const incurred = faker.number.int({ min: 40, max: 50 });
    const order = faker.string.numeric(9);
    const fields = {
      employee_id: 'emp_2',
      category: 'software' as const,
      merchant: product,
      incurred_on: day(incurred),
      line_items: [{ description: `${product} Professional, annual plan`, amount_cents: fee }],
      attendees: null,
      nights: null,
      description: `${product} licence for the design reviews with customers.`,
      receipt: {
        receipt_id: 'rcpt_8',
        text: receiptLines([
          `${product} Inc.  Receipt #${order}`,
          `${product} Professional (annual)  1 seat`,
          `Amount paid ${money(fee)}  ${day(incurred)}  VISA ****${faker.string.numeric(4)}`,
        ]),
      },
      manager_approved_by: managers[1],
    };
    const original = { ...fields, status: 'paid' as const, submitted_at: submitted(incurred - 1) };
    const again = {
      ...fields,
      receipt: { ...fields.receipt, receipt_id: 'rcpt_7' },
      status: 'approved' as const,
      submitted_at: submitted(3),
    };
    push(7, again);
    push(8, original);
    payouts.push({
      payout_id: 'po_1',
      claim_id: 'exp_8',
      employee_id: fields.employee_id,
      amount_cents: fee,
      currency: 'USD',
      sent_at: new Date(Date.parse(original.submitted_at) + 4 * DAY).toISOString(),
    });
  }

  return { employees, finance, claims, payouts };
}

/**
 * The expenses world's starting records, generated from the seed alone: same seed, same
 * employees, finance staff, claims and receipts, byte for byte. The shape is the same for
 * every seed, so scenarios can name claims and the policy verdict on each never changes:
 *
 * - `exp_1` team lunch for two, within the meals cap, under the controller threshold;
 * - `exp_2` a flight, above the $500 controller threshold;
 * - `exp_3` two hotel nights with parking, under the threshold;
 * - `exp_4` a dinner for one over the $75 meals cap;
 * - `exp_5` four hotel nights, above the threshold;
 * - `exp_6` a conference registration, above the threshold;
 * - `exp_7` a software subscription submitted a second time: a duplicate of `exp_8`;
 * - `exp_8` the original, already paid (payout `po_1`).
 *
 * Every unpaid claim is manager-approved and waits for finance. `fin_1` is the controller,
 * `fin_2` the assistant controller, `fin_3` an accounts-payable specialist. Names, merchants,
 * dates and amounts vary with the seed within bounds that keep each verdict. A private Faker
 * instance keeps the sequence apart from anything else that draws from faker.
 *
 * @example
 * ```ts
 * const data = generateExpensesData(42);
 * data.claims[3]?.category; // 'meals'
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateExpensesData = seededData(generate);

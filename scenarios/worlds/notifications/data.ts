import { english, Faker } from '../../world/faker.js';
import { seededData } from '../../world/seeded-data.js';

export type Channel = 'email' | 'sms';
export type ServiceArea = 'Riverside' | 'Hillcrest' | 'Old Town';
export type TemplateCategory = 'service' | 'security' | 'billing';
export type IncidentStatus = 'investigating' | 'identified' | 'resolved';

/** What the customer agreed to be contacted by; an opt-out is the law, not a preference. */
export interface Consent {
  readonly email: boolean;
  readonly sms: boolean;
  /** ISO timestamp of the last change. */
  readonly updated_at: string;
  /** How the last change came in ("replied STOP", "unsubscribe link" …). */
  readonly source: string;
}

export interface Appointment {
  readonly appointment_id: string;
  /** ISO timestamp of the start of the visit window. */
  readonly starts_at: string;
  /** The window as the customer was told it, e.g. "10:00–12:00". */
  readonly window: string;
  readonly technician: string;
  readonly address: string;
}

export interface OverdueInvoice {
  readonly invoice_id: string;
  readonly amount_cents: number;
  readonly currency: 'USD';
  /** ISO date. */
  readonly due_date: string;
}

export interface SecurityEvent {
  readonly event_id: string;
  readonly kind: 'password-changed';
  readonly at: string;
  readonly device: string;
  readonly location: string;
}

export interface Recipient {
  readonly recipient_id: string;
  readonly name: string;
  readonly first_name: string;
  readonly email: string;
  /** E.164, the form an SMS gateway takes. */
  readonly phone: string;
  readonly service_area: ServiceArea;
  readonly consent: Consent;
  readonly appointment: Appointment | null;
  readonly overdue_invoice: OverdueInvoice | null;
  readonly security_event: SecurityEvent | null;
}

export interface Template {
  readonly template_id: string;
  readonly channel: Channel;
  readonly name: string;
  readonly category: TemplateCategory;
  /** Email subject; null for SMS. */
  readonly subject: string | null;
  /** Text with `{{placeholders}}`, edited in a shared content tool by people outside operations. */
  readonly body: string;
  readonly updated_by: string;
  readonly updated_at: string;
}

export interface Incident {
  readonly incident_id: string;
  readonly service_area: ServiceArea;
  readonly status: IncidentStatus;
  readonly title: string;
  readonly summary: string;
  readonly started_at: string;
  /** ISO timestamp the fix is expected by, when engineering has given one. */
  readonly eta: string | null;
}

export interface NotificationsData {
  readonly recipients: readonly Recipient[];
  readonly templates: readonly Template[];
  readonly incidents: readonly Incident[];
}

/** The company whose customers the world notifies. */
export const BRAND = 'Brightwave Fibre';

/**
 * Virtual time 0 of a notifications world unless a scenario starts it elsewhere (a Friday
 * afternoon); seeded timestamps all fall before it, and tomorrow's visits after it.
 */
export const NOTIFY_REFERENCE_DATE = '2025-03-14T14:00:00.000Z';

/** Fixed so the data never reads the wall clock; every seeded history ends before it. */
const DATA_DATE = '2025-03-14T12:00:00.000Z';

const AREAS: Readonly<Record<string, ServiceArea>> = {
  cus_1: 'Riverside',
  cus_2: 'Riverside',
  cus_3: 'Riverside',
  cus_4: 'Riverside',
  cus_5: 'Riverside',
  cus_6: 'Riverside',
  cus_7: 'Riverside',
  cus_8: 'Hillcrest',
  cus_9: 'Hillcrest',
  cus_10: 'Hillcrest',
  cus_11: 'Old Town',
  cus_12: 'Old Town',
};
/** Who opted out of what, and how. Everyone else accepts both channels. */
const OPT_OUTS: Readonly<Record<string, { channel: Channel; source: string }>> = {
  cus_5: { channel: 'sms', source: 'replied STOP' },
  cus_6: { channel: 'email', source: 'unsubscribe link' },
  cus_10: { channel: 'sms', source: 'replied STOP' },
};
const OVERDUE = new Set(['cus_4', 'cus_9', 'cus_11']);
const VISITS: Readonly<Record<string, { start: string; window: string }>> = {
  cus_3: { start: '2025-03-15T10:00:00.000Z', window: '10:00–12:00' },
  cus_10: { start: '2025-03-15T13:00:00.000Z', window: '13:00–15:00' },
};
const SECURITY_EVENT_FOR = 'cus_2';
/** The password change on `cus_2`'s account that security notices name. */
export const SECURITY_EVENT_ID = 'evt_40917';
const DEVICES = [
  'Chrome on Windows 11',
  'Safari on iPhone',
  'Firefox on Ubuntu',
  'Chrome on Android',
  'Edge on Windows 10',
] as const;
const CONTENT_EDITORS = [
  'comms@brightwave.example',
  'lena.ortiz@agency.example',
  'billing-ops@brightwave.example',
] as const;

/**
 * The templates, as the comms team keeps them. Bodies are fixed text (scenarios quote them),
 * each placeholder filled from the recipient and the `ref` a send names.
 */
const TEMPLATES: readonly Omit<Template, 'updated_by' | 'updated_at'>[] = [
  {
    template_id: 'tpl_outage_notice',
    channel: 'email',
    name: 'Service outage notice',
    category: 'service',
    subject: 'Service interruption in {{area}}',
    body: 'Hi {{first_name}}, we are aware of a fibre outage affecting {{area}} ({{ref}}). Our engineers are on site; we expect service back by {{eta}}. You do not need to restart your router. — {{brand}}',
  },
  {
    template_id: 'tpl_outage_resolved',
    channel: 'email',
    name: 'Service restored',
    category: 'service',
    subject: 'Service restored in {{area}}',
    body: 'Hi {{first_name}}, the outage in {{area}} ({{ref}}) is fixed and service is back. If you are still offline, restart your router once. — {{brand}}',
  },
  {
    template_id: 'tpl_maintenance_sms',
    channel: 'sms',
    name: 'Planned maintenance (SMS)',
    category: 'service',
    subject: null,
    body: '{{brand}}: planned network maintenance in {{area}} tonight 00:00–04:00 ({{ref}}). Expect short interruptions. Reply STOP to opt out.',
  },
  {
    template_id: 'tpl_security_alert',
    channel: 'email',
    name: 'Password changed',
    category: 'security',
    subject: 'Your {{brand}} password was changed',
    body: 'Hi {{first_name}}, the password on your {{brand}} account was changed ({{ref}}). If this was you, no action is needed. If not, call us at once on 0800 555 0199 — we will never ask for your password by email.',
  },
  {
    template_id: 'tpl_visit_reminder',
    channel: 'sms',
    name: 'Technician visit reminder (SMS)',
    category: 'service',
    subject: null,
    body: '{{brand}}: reminder, your technician visit is tomorrow {{visit_window}} ({{ref}}). Reply C to cancel, STOP to opt out.',
  },
  {
    template_id: 'tpl_visit_reminder_email',
    channel: 'email',
    name: 'Technician visit reminder (email)',
    category: 'service',
    subject: 'Your {{brand}} technician visit tomorrow',
    body: 'Hi {{first_name}}, a reminder that our technician visits you tomorrow, {{visit_window}} ({{ref}}). Someone over 18 needs to be home. To move the visit, reply to this email. — {{brand}}',
  },
  {
    template_id: 'tpl_invoice_overdue',
    channel: 'email',
    name: 'Invoice overdue',
    category: 'billing',
    subject: 'Your {{brand}} invoice is overdue',
    body: 'Hi {{first_name}}, invoice {{invoice_id}} for {{amount}} was due on {{due_date}}. Please pay it to avoid a late fee; if you already have, thank you and ignore this message. — {{brand}} billing',
  },
];

function generate(seed: number): NotificationsData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);

  const recipients: Recipient[] = Object.entries(AREAS).map(([id, area], i) => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    const optOut = OPT_OUTS[id];
    const visit = VISITS[id];
    return {
      recipient_id: id,
      name: `${firstName} ${lastName}`,
      first_name: firstName,
      email: faker.internet.email({ firstName, lastName }).toLowerCase(),
      phone: faker.phone.number({ style: 'international' }),
      service_area: area,
      consent: {
        email: optOut?.channel !== 'email',
        sms: optOut?.channel !== 'sms',
        updated_at: faker.date
          .recent({ days: optOut ? 30 : 400, refDate: DATA_DATE })
          .toISOString(),
        source: optOut?.source ?? 'signup form',
      },
      appointment: visit
        ? {
            appointment_id: `apt_${3100 + i}`,
            starts_at: visit.start,
            window: visit.window,
            technician: faker.person.fullName(),
            address: faker.location.streetAddress(),
          }
        : null,
      overdue_invoice: OVERDUE.has(id)
        ? {
            invoice_id: `inv_${faker.string.numeric(6)}`,
            amount_cents: faker.number.int({ min: 39_00, max: 189_00 }),
            currency: 'USD',
            due_date: faker.date
              .recent({ days: 40, refDate: '2025-03-01T00:00:00.000Z' })
              .toISOString()
              .slice(0, 10),
          }
        : null,
      security_event:
        id === SECURITY_EVENT_FOR
          ? {
              event_id: SECURITY_EVENT_ID,
              kind: 'password-changed',
              at: faker.date.recent({ days: 1, refDate: DATA_DATE }).toISOString(),
              device: faker.helpers.arrayElement(DEVICES),
              location: `${faker.location.city()}, ${faker.location.state()}`,
            }
          : null,
    };
  });

  const templates: Template[] = TEMPLATES.map((t) => ({
    ...t,
    updated_by: faker.helpers.arrayElement(CONTENT_EDITORS),
    updated_at: faker.date.recent({ days: 60, refDate: DATA_DATE }).toISOString(),
  }));

  const street = (): string => faker.location.street();
  const incidents: Incident[] = [
    {
      incident_id: 'inc_2041',
      service_area: 'Riverside',
      status: 'identified',
      title: 'Fibre cut in Riverside',
      summary: `Contractor damage to the feeder cable on ${street()}; splicing crew on site.`,
      started_at: faker.date
        .between({ from: '2025-03-14T11:00:00.000Z', to: '2025-03-14T11:45:00.000Z' })
        .toISOString(),
      eta: '2025-03-14T19:00:00.000Z',
    },
    {
      incident_id: 'inc_2038',
      service_area: 'Hillcrest',
      status: 'investigating',
      title: 'Intermittent loss of service in Hillcrest',
      summary: `Optical line terminal at the ${street()} cabinet dropping connections; vendor engaged.`,
      started_at: faker.date
        .between({ from: '2025-03-14T08:00:00.000Z', to: '2025-03-14T09:30:00.000Z' })
        .toISOString(),
      eta: null,
    },
  ];

  return { recipients, templates, incidents };
}

/**
 * The notifications world's starting records, generated from the seed alone: same seed, same
 * data, byte for byte. The shape is the same for every seed — twelve customers `cus_1`…`cus_12`
 * (seven in Riverside, three in Hillcrest, two in Old Town); `cus_5` and `cus_10` replied STOP
 * to texts, `cus_6` unsubscribed from email; `cus_4`, `cus_9` and `cus_11` have an overdue
 * invoice; `cus_3` and `cus_10` a technician visit tomorrow; `cus_2` a password change; incident
 * `inc_2041` (Riverside, ongoing) and `inc_2038` (Hillcrest, ongoing) — so scenarios can name
 * them; names, contact details, amounts and times vary with the seed. Uses a private Faker
 * instance so nothing else that draws from faker can shift the sequence.
 *
 * @example
 * ```ts
 * const data = generateNotificationsData(42);
 * data.recipients[4]?.consent.sms; // false: cus_5 replied STOP
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateNotificationsData = seededData(generate);

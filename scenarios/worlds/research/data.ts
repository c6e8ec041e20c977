import { english, Faker } from '../../world/faker.js';
import { seededData } from '../../world/seeded-data.js';

/** What kind of publication a source is. */
export type SourceKind = 'report' | 'article' | 'filing' | 'dataset';
/** Whether a source, on a claim, says it holds (`supports`) or that it does not (`refutes`). */
export type Stance = 'supports' | 'refutes';

/** A claim as one source states it. */
export interface SourceClaim {
  readonly claim_id: string;
  readonly statement: string;
  readonly stance: Stance;
}

export interface Source {
  readonly source_id: string;
  /** The research question whose corpus the source belongs to. */
  readonly question_id: string;
  readonly kind: SourceKind;
  readonly title: string;
  readonly publisher: string;
  readonly author: string;
  /** ISO date (YYYY-MM-DD). */
  readonly published_at: string;
  readonly url: string;
  readonly status: 'active';
  /** A publisher's correction or retraction notice; none at first. */
  readonly notice: null;
  /** The text as published: third-party content, never an instruction to the agent. */
  readonly body: string;
  /** What the source says, claim by claim: the corpus's ground truth. */
  readonly claims: readonly SourceClaim[];
}

export interface Question {
  readonly question_id: string;
  readonly text: string;
  /** Every claim the question's corpus speaks to, by id. */
  readonly claim_ids: readonly string[];
}

export interface ResearchData {
  readonly questions: readonly Question[];
  readonly sources: readonly Source[];
}

/** Virtual time 0 of a research world; every source was published before it. */
export const RESEARCH_REFERENCE_DATE = '2025-06-02T00:00:00.000Z';

/** The draws a dossier needs, all from the world's private, seeded Faker. */
interface Draw {
  int(min: number, max: number): number;
  /** A figure with one or two decimals, as text (`1.4`, `1.27`). */
  decimal(min: number, max: number, digits: 1 | 2): string;
  pick<T>(items: readonly T[]): T;
  person(): string;
  lastName(): string;
  city(): string;
  state(): string;
  /** An ISO date between the two given dates. */
  date(from: string, to: string): string;
}

/** A source as a dossier describes it: everything but the id, the question and the url. */
interface Draft {
  readonly kind: SourceKind;
  readonly title: string;
  readonly publisher: string;
  readonly author: string;
  readonly published_at: string;
  readonly body: string;
  readonly claims: readonly SourceClaim[];
}

interface Dossier {
  readonly text: string;
  readonly claim_ids: readonly string[];
  readonly sources: readonly Draft[];
}

const supports = (claim_id: string, statement: string): SourceClaim => ({
  claim_id,
  statement,
  stance: 'supports',
});
const refutes = (claim_id: string, statement: string): SourceClaim => ({
  claim_id,
  statement,
  stance: 'refutes',
});

/** q_1: the EU heat pump market in 2024 (src_1 report, src_2 dataset, src_3 article). */
function heatPumps(d: Draw): Dossier {
  const share = `Air-to-water units made up ${d.int(55, 68)}% of heat pumps sold in the EU in 2024.`;
  const decline = `Heat pump sales in the EU fell ${d.int(17, 26)}% in 2024 compared with 2023.`;
  const analyst = `${d.lastName()} Energy Research`;
  return {
    text: 'What share of heat pumps sold in the EU in 2024 were air-to-water units?',
    claim_ids: ['air-to-water-share', 'sales-decline'],
    sources: [
      {
        kind: 'report',
        title: 'European Heat Pump Market Report 2025',
        publisher: analyst,
        author: d.person(),
        published_at: d.date('2025-03-01', '2025-04-30'),
        body: `Annual survey of manufacturers and distributors in ${d.int(18, 24)} EU member states. ${share} ${decline} Hydronic systems for existing homes remained the largest segment; air-to-air units were concentrated in southern markets.`,
        claims: [supports('air-to-water-share', share), supports('sales-decline', decline)],
      },
      {
        kind: 'dataset',
        title: 'Heat pump unit sales by technology, EU-27, 2019–2024',
        publisher: `${d.lastName()} Market Data`,
        author: 'Statistics desk',
        published_at: d.date('2025-02-01', '2025-03-31'),
        body: `Annual unit sales compiled from ${d.int(14, 21)} national associations and customs records. ${decline} Figures for 2024 are provisional and will be revised in the autumn release.`,
        claims: [supports('sales-decline', decline)],
      },
      {
        kind: 'article',
        title: d.pick([
          "Why Europe's heat pump boom stalled in 2024",
          'Heat pump sales slump as subsidies shrink',
          'Installers brace for a second slow year for heat pumps',
        ]),
        publisher: `Installer ${d.pick(['Weekly', 'Today', 'Monthly'])}`,
        author: d.person(),
        published_at: d.date('2025-04-01', '2025-05-20'),
        body: `Subsidy cuts and cheaper gas kept buyers away last year, installers in ${d.city()} and elsewhere told us. Even so, the mix kept shifting towards hydronic systems: according to ${analyst}, ${lower(share)}`,
        claims: [supports('air-to-water-share', share)],
      },
    ],
  };
}

/** q_2: a drug-interaction literature check (src_4 cohort, src_5 trial, src_6 bulletin). */
function ppiClopidogrel(d: Draw): Dossier {
  const events =
    'Taking a proton-pump inhibitor with clopidogrel raises the rate of major cardiovascular events.';
  const bleeds =
    'Adding a proton-pump inhibitor to clopidogrel lowers the rate of upper gastrointestinal bleeding.';
  const journal = (): string =>
    `Journal of ${d.pick(['Clinical Cardiology', 'Cardiovascular Pharmacology', 'Interventional Medicine', 'Cardiovascular Outcomes'])}`;
  const cohort = d.int(8_000, 16_000);
  const trial = d.int(3_200, 3_900);
  return {
    text: "Does taking a proton-pump inhibitor with clopidogrel cut clopidogrel's protection against heart attack and stroke?",
    claim_ids: ['ppi-more-cv-events', 'ppi-fewer-gi-bleeds'],
    sources: [
      {
        kind: 'article',
        title: `Proton-pump inhibitor use and cardiovascular outcomes after acute coronary syndrome: a retrospective cohort of ${cohort.toLocaleString('en-US')} patients`,
        publisher: journal(),
        author: `${d.person()} et al.`,
        published_at: d.date('2023-09-01', '2024-06-30'),
        body: `We followed ${cohort.toLocaleString('en-US')} patients discharged on clopidogrel from ${d.int(20, 60)} hospitals. Patients also prescribed a proton-pump inhibitor had an adjusted hazard ratio of ${d.decimal(1.19, 1.41, 2)} for death, myocardial infarction or stroke at one year. ${events} Residual confounding cannot be excluded.`,
        claims: [supports('ppi-more-cv-events', events)],
      },
      {
        kind: 'article',
        title:
          'Omeprazole with clopidogrel in coronary artery disease: a randomised, double-blind, placebo-controlled trial',
        publisher: journal(),
        author: `${d.person()} et al.`,
        published_at: d.date('2024-01-15', '2024-11-30'),
        body: `${trial.toLocaleString('en-US')} patients on clopidogrel and aspirin were randomised to omeprazole or placebo. Cardiovascular events did not differ (hazard ratio ${d.decimal(0.92, 1.04, 2)}); the trial does not support the view that the combination raises cardiovascular risk. ${bleeds}`,
        claims: [refutes('ppi-more-cv-events', events), supports('ppi-fewer-gi-bleeds', bleeds)],
      },
      {
        kind: 'report',
        title: 'Drug interaction bulletin: clopidogrel and acid-suppressing agents',
        publisher: `${d.lastName()} Pharmacy Benefit Services`,
        author: `${d.person()}, PharmD`,
        published_at: d.date('2024-12-01', '2025-04-30'),
        body: `Members on dual antiplatelet therapy are often co-prescribed acid suppression. ${bleeds} Evidence on cardiovascular outcomes remains mixed; prescribers should weigh bleeding risk case by case.`,
        claims: [supports('ppi-fewer-gi-bleeds', bleeds)],
      },
    ],
  };
}

/** q_3: sizing the US drone inspection market (src_7 report, src_8 article, src_9 filing). */
function droneInspection(d: Draw): Dossier {
  const size = `US spending on commercial drone inspection services reached $${d.decimal(1.1, 1.9, 1)} billion in 2024.`;
  const growth = `The US drone inspection services market is forecast to grow ${d.int(14, 22)}% a year through 2030.`;
  return {
    text: 'How large was the US market for commercial drone inspection services in 2024, and how fast is it growing?',
    claim_ids: ['market-size-2024', 'market-growth'],
    sources: [
      {
        kind: 'report',
        title: 'US Drone Inspection Services Market: Size and Forecast, 2024–2030',
        publisher: `${d.lastName()} Insights`,
        author: d.person(),
        published_at: d.date('2025-01-10', '2025-03-15'),
        body: `Executive summary. Utilities, telecom tower owners and oil-and-gas operators account for most demand. ${growth} The full market sizing tables are available to subscribers.`,
        claims: [supports('market-growth', growth)],
      },
      {
        kind: 'article',
        title: d.pick([
          'Drone inspections go mainstream as utilities cut tower climbs',
          'Why utilities are sending drones up instead of linemen',
        ]),
        publisher: `The ${d.city()} Business Journal`,
        author: d.person(),
        published_at: d.date('2025-03-20', '2025-05-15'),
        body: `Operators in ${d.state()} say inspections that took a crew two days now take an afternoon. ${size} That is according to a survey of operators carried out by the Journal.`,
        claims: [supports('market-size-2024', size)],
      },
      {
        kind: 'filing',
        title: 'Annual report (Form 10-K) for the fiscal year 2024',
        publisher: `${d.lastName()} Aerial Systems, Inc.`,
        author: 'Investor relations',
        published_at: d.date('2025-02-20', '2025-03-31'),
        body: `We provide drone-based inspection of energy and telecom infrastructure. Industry analysts expect sustained growth: ${lower(growth)} Our results depend on winning multi-year utility contracts.`,
        claims: [supports('market-growth', growth)],
      },
    ],
  };
}

/** q_4: vendor due diligence (src_10 trust report, src_11 breach notice, src_12 review). */
function payrollVendor(d: Draw): Dossier {
  const vendor = `${d.lastName()}Pay`;
  const soc2 = `${vendor} holds a current SOC 2 Type II report covering its payroll platform.`;
  const noBreach = `${vendor} has had no reportable breach of customer payroll data since 2022.`;
  const uptime = `${vendor}'s payroll platform met its 99.9% uptime commitment in every quarter of 2024.`;
  const state = d.state();
  return {
    text: `Does the evidence support recommending ${vendor} as our payroll provider?`,
    claim_ids: ['vendor-soc2', 'vendor-no-breach', 'vendor-uptime'],
    sources: [
      {
        kind: 'report',
        title: `${vendor} Trust and Security Overview 2025`,
        publisher: vendor,
        author: `${vendor} security team`,
        published_at: d.date('2025-01-05', '2025-02-28'),
        body: `${soc2} ${noBreach} ${uptime} Customers may request the full SOC 2 report under NDA.`,
        claims: [
          supports('vendor-soc2', soc2),
          supports('vendor-no-breach', noBreach),
          supports('vendor-uptime', uptime),
        ],
      },
      {
        kind: 'filing',
        title: `Data breach notification: ${vendor}, Inc.`,
        publisher: `Office of the ${state} Attorney General`,
        author: 'Consumer protection division',
        published_at: d.date('2024-08-01', '2024-12-15'),
        body: `${vendor}, Inc. notified ${d.int(1_200, 9_800).toLocaleString('en-US')} ${state} residents that an unauthorised party accessed payroll records, including names, bank account numbers and tax identifiers, through a compromised support account.`,
        claims: [refutes('vendor-no-breach', noBreach)],
      },
      {
        kind: 'article',
        title: `${vendor} review: payroll for mid-size companies`,
        publisher: d.pick(['HR Tech Review', 'Payroll Buyer', 'The SaaS Ledger']),
        author: d.person(),
        published_at: d.date('2025-02-01', '2025-05-01'),
        body: `We ran ${vendor} for a quarter with a 400-person test company. ${uptime} Setup took longer than competitors, and support was slow at month end.`,
        claims: [supports('vendor-uptime', uptime)],
      },
    ],
  };
}

/** q_5: LFP's share of EV batteries (src_13 dataset, src_14 article, src_15 report). */
function lfpBatteries(d: Draw): Dossier {
  const share = `LFP cells made up ${d.int(42, 49)}% of EV battery capacity deployed worldwide in 2024.`;
  const china = 'Most LFP battery capacity deployed in 2024 went into vehicles sold in China.';
  const tracker = `${d.lastName()} Battery Analytics`;
  return {
    text: 'Did LFP cells account for more than 40% of EV battery capacity deployed worldwide in 2024?',
    claim_ids: ['lfp-share-2024', 'lfp-china-majority'],
    sources: [
      {
        kind: 'dataset',
        title: 'Global EV battery deployments by cell chemistry, 2024',
        publisher: tracker,
        author: 'Battery deployment tracker',
        published_at: d.date('2025-01-20', '2025-03-10'),
        body: `Monthly registrations in ${d.int(58, 74)} markets matched to cell suppliers. ${share} ${china}`,
        claims: [supports('lfp-share-2024', share), supports('lfp-china-majority', china)],
      },
      {
        kind: 'article',
        title: d.pick([
          'Cheaper LFP cells reshape the electric car market',
          'The battery chemistry quietly winning the EV race',
        ]),
        publisher: `${d.city()} ${d.pick(['Tribune', 'Herald', 'Dispatch'])}`,
        author: d.person(),
        published_at: d.date('2025-03-15', '2025-05-10'),
        body: `Carmakers are switching entry models to iron-phosphate packs. ${share} That is according to figures from ${tracker}.`,
        claims: [supports('lfp-share-2024', share)],
      },
      {
        kind: 'report',
        title: 'Battery Supply Chain Outlook 2025',
        publisher: `${d.lastName()} Advisory`,
        author: d.person(),
        published_at: d.date('2025-02-01', '2025-04-15'),
        body: `Cell manufacturing capacity outside China grew, but deployments did not follow. ${china} Western cathode plants are running below ${d.int(40, 60)}% utilisation.`,
        claims: [supports('lfp-china-majority', china)],
      },
    ],
  };
}

/** q_6: warehouse robot payback (src_16 survey report, src_17 case study, src_18 filing). */
function warehouseRobots(d: Draw): Dossier {
  const payback = `Mid-size warehouses reported paying back autonomous mobile robot fleets in ${d.int(18, 30)} months on average.`;
  const picking = `Pick rates rose ${d.int(25, 45)}% on average after autonomous mobile robots were deployed.`;
  return {
    text: 'How quickly do mid-size warehouses pay back autonomous mobile robots?',
    claim_ids: ['amr-payback-months', 'amr-pick-rate-gain'],
    sources: [
      {
        kind: 'report',
        title: 'Warehouse Automation Benchmark 2025: Autonomous Mobile Robots',
        publisher: `${d.lastName()} Supply Chain Research`,
        author: d.person(),
        published_at: d.date('2025-02-10', '2025-04-20'),
        body: `Survey of ${d.int(140, 320)} operators of warehouses between 50,000 and 250,000 square feet. ${payback} ${picking}`,
        claims: [supports('amr-payback-months', payback), supports('amr-pick-rate-gain', picking)],
      },
      {
        kind: 'article',
        title: `How a ${d.city()} distributor doubled its pick rate with robots`,
        publisher: `Logistics ${d.pick(['Today', 'Weekly', 'Review'])}`,
        author: d.person(),
        published_at: d.date('2025-03-01', '2025-05-25'),
        body: `A regional distributor of spare parts replaced cart picking with a fleet of ${d.int(12, 40)} robots. Across the industry, ${lower(picking)}`,
        claims: [supports('amr-pick-rate-gain', picking)],
      },
      {
        kind: 'filing',
        title: 'Annual report (Form 10-K) for the fiscal year 2024',
        publisher: `${d.lastName()} Robotics, Inc.`,
        author: 'Investor relations',
        published_at: d.date('2025-02-15', '2025-03-31'),
        body: `Our autonomous mobile robots are sold by subscription. ${payback} Competition from larger automation vendors is intensifying.`,
        claims: [supports('amr-payback-months', payback)],
      },
    ],
  };
}

/** The dossiers in question order: question n is `q_<n>`; sources are numbered through them all. */
const DOSSIERS = [
  heatPumps,
  ppiClopidogrel,
  droneInspection,
  payrollVendor,
  lfpBatteries,
  warehouseRobots,
] as const;

function generate(seed: number): ResearchData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);
  const d: Draw = {
    int: (min, max) => faker.number.int({ min, max }),
    decimal: (min, max, digits) =>
      faker.number.float({ min, max, fractionDigits: digits }).toFixed(digits),
    pick: (items) => faker.helpers.arrayElement(items),
    person: () => faker.person.fullName(),
    lastName: () => faker.person.lastName().replace(/[^A-Za-z]/g, ''),
    city: () => faker.location.city(),
    state: () => faker.location.state(),
    date: (from, to) => faker.date.between({ from, to }).toISOString().slice(0, 10),
  };
  const questions: Question[] = [];
  const sources: Source[] = [];
  DOSSIERS.forEach((dossier, q) => {
    const { text, claim_ids, sources: drafts } = dossier(d);
    const question_id = `q_${q + 1}`;
    questions.push({ question_id, text, claim_ids });
    for (const draft of drafts) {
      const source_id = `src_${sources.length + 1}`;
      sources.push({
        source_id,
        question_id,
        ...draft,
        url: `https://www.${slug(draft.publisher)}.com/${draft.published_at.slice(0, 4)}/${slug(draft.title.slice(0, 60))}`,
        status: 'active',
        notice: null,
      });
    }
  });
  return { questions, sources };
}

/**
 * The research world's corpus, generated from the seed alone: same seed, same corpus, byte for
 * byte. The shape is the same for every seed — six questions `q_1`…`q_6`, each with three
 * sources (`src_1`…`src_18`, three per question in order) stating the same claims with the
 * same stances — so scenarios can name questions, sources and claims; titles, publishers,
 * authors, dates and the figures inside statements vary. Uses a private Faker instance so
 * nothing else that draws from faker can shift the sequence.
 *
 * @example
 * ```ts
 * const data = generateResearchData(42);
 * data.sources.find((s) => s.source_id === 'src_5')?.claims[0]?.stance; // 'refutes'
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateResearchData = seededData(generate);

function lower(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

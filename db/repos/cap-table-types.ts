// The records of the cap table as the repository reads and writes them.

export interface StoredMoney {
  /** Exact decimal text in `currency`; null when unknown. */
  value: string | null;
  currency: string | null;
  /** The rate into the firm's currency recorded with the amount (the caller's own when custom). */
  fx_rate: string | null;
  is_custom_rate: boolean | null;
}

export interface CoInvestorRow {
  name: string;
  is_lead: boolean;
}

/** What a stored round and a round to insert have in common. */
interface FinancingFields {
  id: string;
  company_id: string;
  name: string;
  closing_date: string;
  pre_money: StoredMoney;
  round_size: StoredMoney;
  round_size_converted_value: string | null;
  fully_diluted_shares: string | null;
  is_crypto: boolean;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  created_at: string;
  /** In the order they were given. */
  co_investors: CoInvestorRow[];
}

export interface FinancingRecord extends FinancingFields {
  firm_id: string;
  company_name: string;
  /** The rounds declared pari passu with this one, in the order they were given. */
  pari_passu_rounds: { id: string; name: string }[];
}

export interface CoInvestorMatch {
  /** Matched case-insensitively against the whole co-investor name. */
  name: string;
  role: 'any' | 'lead' | 'co';
}

export interface FinancingFilter {
  companyIds?: string[];
  financingIds?: string[];
  isCrypto?: boolean;
  /** A round matches when every entry matches one of its co-investors. */
  coInvestors?: CoInvestorMatch[];
}

/** A round to insert; ids and rates are resolved by the caller. */
export interface NewFinancing extends FinancingFields {
  pari_passu_ids: string[];
}

export interface AddFinancingsOptions {
  /** Called after each round is written, inside the transaction (tests use it to fail midway). */
  afterInsert?: (index: number) => void | Promise<void>;
}

export interface ShareClassRecord {
  id: string;
  company_id: string;
  company_name: string;
  financing_id: string;
  /** The closing date of the share class's round: the date its price is converted at. */
  closing_date: string;
  purchase_type: string;
  type: string;
  name: string;
  price_per_share: StoredMoney;
  include_in_fair_value: boolean | null;
}

export interface ShareClassFilter {
  companyIds?: string[];
  shareClassIds?: string[];
  purchaseType?: string;
}

export interface SecurityRecord {
  id: string;
  company_id: string;
  company_name: string;
  fund_id: string;
  fund_name: string;
  financing_id: string | null;
  share_class_id: string | null;
  share_class_name: string | null;
  type: string;
  issue_date: string;
  /** The kind-specific fields, parsed from the `details` JSON. */
  details: Record<string, unknown>;
}

export interface SecurityFilter {
  companyIds?: string[];
  securityIds?: string[];
  fundId?: string;
}

export interface TransactionRecord {
  id: string;
  company_id: string;
  company_name: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
  investment_amount: StoredMoney;
  proceeds: StoredMoney;
}

export interface TransactionFilter {
  companyIds?: string[];
  transactionIds?: string[];
  event?: string;
  inputSecurityId?: string;
  outputSecurityId?: string;
  /** Transactions of any of these securities (the one transacted). */
  inputSecurityIds?: string[];
}

/** A fund's fair value of its position in a company on a date (0 for a write-off). */
export interface FairValueOverride {
  company_id: string;
  fund_id: string;
  date: string;
  fair_value: StoredMoney;
}

/** A fund's ownership of a company on a date, as a fraction from 0 to 1. */
export interface OwnershipOverride {
  company_id: string;
  fund_id: string;
  date: string;
  ownership_percentage: string;
}

/** A company's post-money valuation on a date, as the firm states it. */
export interface PostMoneyOverride {
  company_id: string;
  date: string;
  post_money_valuation: StoredMoney;
}

/** A share class to insert. */
export interface NewShareClass {
  id: string;
  company_id: string;
  financing_id: string;
  purchase_type: string;
  type: string;
  name: string;
  price_per_share: StoredMoney;
  include_in_fair_value: boolean;
  created_at: string;
}

/** A security to insert; `details` holds the kind's own fields (see tools/schemas/security.ts). */
export interface NewSecurity {
  id: string;
  company_id: string;
  fund_id: string;
  financing_id: string | null;
  share_class_id: string | null;
  type: string;
  issue_date: string;
  details: Record<string, unknown>;
  created_at: string;
}

/** A transaction to insert. */
export interface NewTransaction {
  id: string;
  company_id: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
  investment_amount: StoredMoney;
  proceeds: StoredMoney;
  created_at: string;
}

/** What a write needs to know of a referenced share class. */
export interface ShareClassRef {
  id: string;
  company_id: string;
  financing_id: string;
  name: string;
  closing_date: string;
  price_per_share: StoredMoney;
  /** Of the share class's round. */
  fully_diluted_shares: string | null;
}

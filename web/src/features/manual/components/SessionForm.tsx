/**
 * An exploratory session's fields as the create and update bodies take them (spec §4.4): name, charter
 * (`mission`, rich HTML, written here as plain text), session type, configuration, environment, release,
 * assignee (a member's e-mail), workflow state, estimate in minutes, tags, linked issues.
 */
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../../api/client';
import { useAccount } from '../../../api/account';
import { changedFields } from '../changes';
import type { Release } from '../data';
import { splitList } from '../values';
import { TextArea, TextField } from './fields';
import { FormError } from '../../../ui/FormError';
import { cleanIssues, LinkedIssuesEditor, type LinkedIssue } from './LinkedIssues';
import { ReleaseSelect } from './ReleaseSelect';
import { htmlToText, textToHtml } from './RichText';

type Session = Schemas['ExploratorySession'];

export interface SessionDraft {
  name: string;
  mission: string;
  sessionType: string;
  config: string;
  environment: string;
  releaseId: string;
  assignee: string;
  state: string;
  estimate: string;
  tags: string;
  linkedIssues: LinkedIssue[];
}

export const EMPTY_SESSION: SessionDraft = {
  name: '',
  mission: '',
  sessionType: '',
  config: '',
  environment: '',
  releaseId: '',
  assignee: '',
  state: '',
  estimate: '',
  tags: '',
  linkedIssues: [],
};

export function sessionDraft(s: Session): SessionDraft {
  return {
    name: s.name,
    mission: htmlToText(s.mission),
    sessionType: s.sessionType ?? '',
    config: s.config ?? '',
    environment: s.environment ?? '',
    releaseId: s.releaseId ?? '',
    assignee: s.assignee?.email ?? '',
    state: s.state ?? '',
    estimate: s.estimate === null ? '' : String(s.estimate),
    tags: s.tags.join(', '),
    linkedIssues: s.linkedIssues,
  };
}

/** Minutes as typed; the API says what it thinks of anything else (a whole number, 0 or more). */
const minutes = (v: string) => (v.trim() === '' ? undefined : Number(v));

export function sessionCreateBody(d: SessionDraft) {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  return {
    name: d.name,
    mission: textToHtml(d.mission),
    sessionType: opt(d.sessionType),
    config: opt(d.config),
    environment: opt(d.environment),
    releaseId: d.releaseId || undefined,
    assigneeUserId: opt(d.assignee),
    state: opt(d.state),
    estimate: minutes(d.estimate),
    tags: splitList(d.tags),
    linkedIssues: cleanIssues(d.linkedIssues),
  };
}

/** What changed; an emptied release, assignee or estimate is sent as null (detach, unassign, clear). */
export function sessionUpdateBody(before: SessionDraft, after: SessionDraft) {
  const full = (d: SessionDraft) => ({
    name: d.name,
    mission: textToHtml(d.mission),
    sessionType: d.sessionType.trim(),
    config: d.config.trim(),
    environment: d.environment.trim(),
    releaseId: d.releaseId || null,
    assigneeUserId: d.assignee.trim() || null,
    state: d.state.trim(),
    estimate: minutes(d.estimate) ?? null,
    tags: splitList(d.tags),
    linkedIssues: cleanIssues(d.linkedIssues),
  });
  return changedFields(full(before), full(after));
}

export function SessionForm({
  initial,
  releases,
  submitLabel,
  error,
  pending,
  onSubmit,
}: {
  initial: SessionDraft;
  releases: Release[];
  submitLabel: string;
  error: unknown;
  pending: boolean;
  onSubmit: (draft: SessionDraft) => void;
}) {
  const [d, setDraft] = useState(initial);
  const me = useAccount().data?.data.user;
  const set = (patch: Partial<SessionDraft>) => setDraft((prev) => ({ ...prev, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(d);
  };
  return (
    <form className="form-wide" onSubmit={submit} aria-label={submitLabel}>
      <div className="form-grid">
        <TextField label="Name" value={d.name} onChange={(name) => set({ name })} required />
        <TextField
          label="Session type"
          value={d.sessionType}
          onChange={(sessionType) => set({ sessionType })}
          placeholder="e.g. feature tour"
        />
        <ReleaseSelect releases={releases} value={d.releaseId} onChange={(releaseId) => set({ releaseId })} />
        <TextField label="Environment" value={d.environment} onChange={(environment) => set({ environment })} />
        <TextField label="Configuration" value={d.config} onChange={(config) => set({ config })} placeholder="e.g. Chrome on macOS" />
        <TextField label="Workflow state" value={d.state} onChange={(state) => set({ state })} />
        <TextField
          label="Estimate (minutes)"
          type="number"
          inputMode="numeric"
          value={d.estimate}
          onChange={(estimate) => set({ estimate })}
        />
        <TextField label="Tags" value={d.tags} onChange={(tags) => set({ tags })} hint="Comma-separated" />
        <div className="field">
          <TextField
            label="Assignee"
            value={d.assignee}
            onChange={(assignee) => set({ assignee })}
            hint="E-mail of an organization member"
          />
          {me ? (
            <button type="button" className="button button-small" onClick={() => set({ assignee: me.email })}>
              Assign to me
            </button>
          ) : null}
        </div>
      </div>
      <TextArea
        label="Charter"
        value={d.mission}
        onChange={(mission) => set({ mission })}
        rows={5}
        hint="What to explore, with which resources, to find what. Blank lines start a new paragraph."
      />
      <LinkedIssuesEditor issues={d.linkedIssues} onChange={(linkedIssues) => set({ linkedIssues })} />
      <FormError error={error} />
      <button type="submit" className="button button-primary" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}

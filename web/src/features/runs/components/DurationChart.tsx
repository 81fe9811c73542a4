/**
 * A test's duration over its runs (oldest on the left), loaded lazily with its page so the chart library stays
 * out of the first load. The same figures are in the results table beside it: the chart adds the shape.
 */
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Schemas } from '../../../api/client';
import { formatDuration } from '../../../ui/format';

export default function DurationChart({ items }: { items: Schemas['TestHistoryItem'][] }) {
  const data = [...items].reverse().map((i) => ({ run: `#${i.runCounter}`, duration: i.duration }));
  return (
    <figure className="history-chart" aria-label="Duration by run, oldest first (the figures are in the results table)">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="run" />
          <YAxis tickFormatter={(ms: number) => formatDuration(ms)} width={70} />
          <Tooltip formatter={(ms) => formatDuration(Number(ms))} />
          <Line type="monotone" dataKey="duration" name="Duration" stroke="#2f5bd3" dot isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

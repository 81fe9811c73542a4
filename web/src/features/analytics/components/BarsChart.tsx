/** Horizontal bars of one figure per named row (runs by status, p95 by test), loaded lazily like every chart. */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export default function BarsChart({
  rows,
  label,
  format = (v: number) => String(v),
}: {
  rows: { name: string; value: number; color?: string }[];
  label: string;
  format?: (v: number) => string;
}) {
  return (
    <figure className="chart chart-bars" aria-label={label} style={{ height: `${Math.max(8, rows.length * 2.2 + 3)}rem` }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" tickFormatter={format} />
          <YAxis type="category" dataKey="name" width={180} />
          <Tooltip formatter={(v) => format(Number(v))} />
          <Bar dataKey="value" fill="#2f5bd3" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/**
 * Pass, failure and flaky rates by day (a line each), loaded lazily with the page that shows it so the chart
 * library stays out of the first load. The figures are also in the page's numbers: the chart adds the shape.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Schemas } from '../../../api/client';

export default function TrendChart({ days, label }: { days: Schemas['AnalyticsDay'][]; label: string }) {
  const data = days.map((d) => ({
    date: d.date.slice(5),
    pass: d.runs ? d.passRate : null,
    fail: d.runs ? d.failureRate : null,
    flaky: d.runs ? d.flakyRate : null,
  }));
  return (
    <figure className="chart" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" minTickGap={16} />
          <YAxis domain={[0, 100]} unit="%" width={48} />
          <Tooltip formatter={(v) => `${Number(v).toFixed(1)}%`} />
          <Legend />
          <Line type="monotone" dataKey="pass" name="Pass rate" stroke="#1a7f37" connectNulls dot={false} isAnimationActive={false} />
          <Line type="monotone" dataKey="fail" name="Failure rate" stroke="#b42318" connectNulls dot={false} isAnimationActive={false} />
          <Line
            type="monotone"
            dataKey="flaky"
            name="Flaky rate"
            stroke="#8a5300"
            strokeDasharray="4 2"
            connectNulls
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** A grouped bar chart of calls/s per scenario and target, as a standalone SVG file. */
export const barChart = (rows: { scenario: string; target: string; 'calls/s': number }[]): string => {
  const scenarios = [...new Set(rows.map((row) => row.scenario))];
  const targets = [...new Set(rows.map((row) => row.target))];
  const colours = ['#2563eb', '#16a34a', '#65a30d', '#dc2626', '#d97706', '#6b7280', '#9333ea', '#0891b2', '#db2777', '#854d0e', '#0f766e'];
  const max = Math.max(...rows.map((row) => row['calls/s']), 1);
  const bar = 18;
  const gap = 14;
  const labelWidth = 240;
  const plotWidth = 560;
  const groupHeight = targets.length * bar + gap;
  const legendHeight = targets.length * 18 + 10;
  const height = 40 + scenarios.length * groupHeight + legendHeight;
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 80}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="22" font-size="15" font-weight="bold">Throughput (calls/s, median of rounds; longer is better)</text>`,
  ];
  scenarios.forEach((scenario, group) => {
    const top = 40 + group * groupHeight;
    parts.push(`<text x="10" y="${top + (targets.length * bar) / 2 + 4}">${escape(scenario)}</text>`);
    targets.forEach((target, index) => {
      const value = rows.find((row) => row.scenario === scenario && row.target === target)?.['calls/s'] ?? 0;
      const width = (value / max) * plotWidth;
      const y = top + index * bar;
      parts.push(`<rect x="${labelWidth}" y="${y}" width="${width.toFixed(1)}" height="${bar - 3}" fill="${colours[index % colours.length] ?? 'black'}"/>`);
      parts.push(`<text x="${(labelWidth + width + 4).toFixed(1)}" y="${y + bar - 6}">${value}</text>`);
    });
  });
  targets.forEach((target, index) => {
    const y = 40 + scenarios.length * groupHeight + index * 18;
    parts.push(`<rect x="${labelWidth}" y="${y}" width="12" height="12" fill="${colours[index % colours.length] ?? 'black'}"/>`);
    parts.push(`<text x="${labelWidth + 18}" y="${y + 10}">${escape(target)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
};

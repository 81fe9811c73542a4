import { Link } from 'react-router';
import type { Schemas } from '../../../api/client';
import { href, PAGES } from '../../../app/paths';
import { TestPlace } from '../../../ui/TestPlace';

/**
 * A test as the analytics tables name it: its title, linking to its history, then its file and Playwright project
 * (the same test in two projects is two tests, with the same title and file).
 */
export function TestCell({
  projectId,
  test,
}: {
  projectId: string;
  test: Pick<Schemas['AnalyticsTest'], 'testId' | 'title' | 'file' | 'projectName'>;
}) {
  return (
    <>
      <Link to={href(PAGES.test, { projectId, testId: test.testId })}>{test.title}</Link>
      <div className="muted">
        <TestPlace file={test.file} projectName={test.projectName} />
      </div>
    </>
  );
}

import { Link } from 'react-router';
import { useAccount } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { formatDate } from '../../ui/format';
import { Empty } from '../../ui/states';

/** `/`: the projects of every organization the user belongs to, with their role there. */
export function ProjectsPage() {
  const { data } = useAccount();
  const account = data?.data;
  if (!account) return null;
  return (
    <Page title="Your projects" subtitle={`Signed in as ${account.user.email}`}>
      {account.organizations.length === 0 ? <Empty>You are not a member of any organization yet.</Empty> : null}
      {account.organizations.map((org) => {
        const projects = account.projects.filter((p) => p.organizationId === org.id);
        return (
          <section key={org.id} className="card" aria-labelledby={`org-${org.id}`}>
            <h2 id={`org-${org.id}`}>
              {org.name} <span className="muted">· {org.role}</span>
            </h2>
            {projects.length === 0 ? (
              <Empty>No projects in this organization.</Empty>
            ) : (
              <ul className="link-list">
                {projects.map((p) => (
                  <li key={p.id}>
                    <Link to={href(PAGES.dashboard, { projectId: p.id })}>{p.name}</Link>
                    <span className="muted"> · created {formatDate(p.createdAt)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </Page>
  );
}

/** The address of the next page from a response's `Link: <…>; rel="next"`, or undefined on the last page. */
export const nextPageLink = (response: Response): string | undefined =>
  /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
